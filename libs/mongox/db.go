package mongox

import "go.mongodb.org/mongo-driver/v2/mongo"

// DB is a service's database and what its stores need to write to it
// safely: on the embedded server (FerretDB, see DocLocks) updates of one
// document are serialised within the process; on MongoDB they are not, as
// it is atomic per document. Stores take one DB instead of a database and
// a set of locks.
//
// Its reads may go through a second client (WithReads): the embedded
// server's writers share one connection per process (see
// embedded.Mongo.URI), which would queue every read of a service behind
// the others. A read sent after a write was acknowledged sees it on either
// client, as the server commits before it answers, so a store may read
// through Reads and write through Database, including the read of a
// read-then-write under Lock. On MongoDB one client serves both.
type DB struct {
	*mongo.Database
	reads *mongo.Database
	locks *DocLocks
}

// NewDB returns db whose writers lock each document when lockDocuments is
// set (the embedded server), and lock nothing otherwise.
func NewDB(db *mongo.Database, lockDocuments bool) DB {
	d := DB{Database: db}
	if lockDocuments {
		d.locks = NewDocLocks()
	}
	return d
}

// WithReads returns d reading through reads, the same database on a
// client of its own; nil reads through d's database.
func (d DB) WithReads(reads *mongo.Database) DB {
	d.reads = reads
	return d
}

// Reads is the database to read from: the one of WithReads, or d's own.
// Writes (and the commands that write, such as findAndModify) go through
// d.Database.
func (d DB) Reads() *mongo.Database {
	if d.reads != nil {
		return d.reads
	}
	return d.Database
}

// Lock locks the document id of collection until the returned function is
// called; without document locks it returns at once.
func (d DB) Lock(collection string, id any) (unlock func()) { return d.locks.Lock(collection, id) }

// Locks is the set of document locks, nil when writes are not serialised;
// for the writers that are not a store (the outbox relay, job queues).
func (d DB) Locks() *DocLocks { return d.locks }
