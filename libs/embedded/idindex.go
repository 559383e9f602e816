package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver FerretDB itself registers as "sqlite"
)

// idIndexEvery is how often the SQLite files are checked for collections
// without the _id lookup index.
const idIndexEvery = 200 * time.Millisecond

// idIndexPrefix names the indexes indexIDs adds.
const idIndexPrefix = "docspub_id_"

// indexIDs gives every collection table of FerretDB's SQLite files an index
// on the expression FerretDB's SQLite backend filters _id lookups with
// (_ferretdb_sjson->'$._id'). FerretDB v1.24 builds its own _id index on
// _ferretdb_sjson->"_id", an expression SQLite does not match with the
// lookup's, so every find, update and delete by _id scanned and decoded the
// whole collection: one tenant's large documents slowed every other tenant's
// reads, and lookups grew with the collection. With the index an _id lookup
// is an index hit, as on MongoDB. FerretDB does not know the index (it reads
// its own metadata, not sqlite_master); SQLite keeps it current on every
// write and drops it with its table. It runs until ctx is done.
func indexIDs(ctx context.Context, dir string, log *slog.Logger) {
	type file struct {
		db     *sql.DB
		info   os.FileInfo
		schema int64 // the schema_version last indexed; -1 before the first pass
		last   int64 // the schema_version seen at the previous tick
	}
	open := map[string]file{}
	defer func() {
		for _, f := range open {
			_ = f.db.Close()
		}
	}()
	t := time.NewTicker(idIndexEvery)
	defer t.Stop()
	for {
		names, _ := filepath.Glob(filepath.Join(dir, "*.sqlite"))
		seen := map[string]bool{}
		for _, name := range names {
			info, err := os.Stat(name)
			if err != nil {
				continue
			}
			seen[name] = true
			f, ok := open[name]
			if ok && !os.SameFile(f.info, info) {
				// The database was dropped and made again: a new file.
				_ = f.db.Close()
				ok = false
			}
			if !ok {
				db, err := sql.Open("sqlite", "file:"+name+"?_pragma=busy_timeout(10000)")
				if err != nil {
					continue
				}
				db.SetMaxOpenConns(1)
				f = file{db: db, info: info, schema: -1, last: -1}
			}
			// The schema version changes with every table or index made or
			// dropped: unchanged, there is nothing new to index, and a pass
			// costs one read of the file header instead of a schema scan. A
			// file whose schema changed since the last tick is left until it
			// is quiet (a service making its collections), so the indexer's
			// schema change does not land among FerretDB's own.
			var v int64
			err = f.db.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v)
			quiet := err == nil && v == f.last
			if err == nil {
				f.last = v
			}
			if quiet && v != f.schema {
				if err := ensureIDIndexes(ctx, f.db); err != nil {
					if ctx.Err() == nil {
						log.Debug("index _id lookups", "file", filepath.Base(name), "err", err)
					}
				} else {
					// The version read before the pass: the indexes it made
					// change it again, and the next pass, finding nothing
					// to add, settles on the new one (so a table made
					// during this pass is not missed).
					f.schema = v
				}
			}
			open[name] = f
		}
		for name, f := range open {
			if !seen[name] { // dropped: let its file go
				_ = f.db.Close()
				delete(open, name)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ensureIDIndexes adds the _id lookup index to the collection tables of one
// database file that lack it.
func ensureIDIndexes(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, `SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index')`)
	if err != nil {
		return err
	}
	var names []string
	indexed := map[string]bool{}
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			_ = rows.Close()
			return err
		}
		if typ == "index" {
			indexed[name] = true
		} else if !strings.HasPrefix(name, "_ferretdb_") && !strings.HasPrefix(name, "sqlite_") {
			names = append(names, name)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	var tables []string
	for _, name := range names {
		if !indexed[idIndexPrefix+name] {
			tables = append(tables, name)
		}
	}
	var missing []string
	for _, table := range tables {
		if hasSJSON(ctx, db, table) {
			missing = append(missing, table)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// One transaction, one schema change: every statement prepared before
	// a schema change is prepared again when next stepped, and SQLite gives
	// up (SQLITE_SCHEMA, which FerretDB answers as an internal error) when
	// the schema keeps changing under it, as an index per table in a row did
	// while a database of hundreds of collections was being made.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, table := range missing {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %s ON %s (_ferretdb_sjson->'$._id')`,
			quote(idIndexPrefix+table), quote(table))
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("index %s: %w", table, err)
		}
	}
	return tx.Commit()
}

// hasSJSON reports whether table is a FerretDB collection table (it has the
// document column).
func hasSJSON(ctx context.Context, db *sql.DB, table string) bool {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = '_ferretdb_sjson'`, table).Scan(&n)
	return err == nil && n == 1
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
