package mongox

import "go.mongodb.org/mongo-driver/v2/mongo"

// DB is a service's database and what its stores need to write to it
// safely: on the embedded server (FerretDB, see DocLocks) updates of one
// document are serialised within the process; on MongoDB they are not, as
// it is atomic per document. Stores take one DB instead of a database and
// a set of locks.
type DB struct {
	*mongo.Database
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

// Lock locks the document id of collection until the returned function is
// called; without document locks it returns at once.
func (d DB) Lock(collection string, id any) (unlock func()) { return d.locks.Lock(collection, id) }

// Locks is the set of document locks, nil when writes are not serialised;
// for the writers that are not a store (the outbox relay, job queues).
func (d DB) Locks() *DocLocks { return d.locks }
