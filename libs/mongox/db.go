package mongox

import "go.mongodb.org/mongo-driver/v2/mongo"

// DB is a service's database as its stores read and write it. Updates of
// one document are atomic on MongoDB and on the embedded server alike
// (libs/embedded/ferretdb holds a collection's write lock from an update's
// read to its write), so nothing is locked here.
//
// Its reads may go through a second client (WithReads): on the embedded
// server a process's writers share a small pool (see embedded.Mongo.URI),
// and reads of their own pool never wait for a connection behind them. A
// read sent after a write was acknowledged sees it on either client, as
// the server commits before it answers, so a store may read through Reads
// and write through Database, including the read of a compare-and-set. On
// MongoDB one client serves both.
type DB struct {
	*mongo.Database
	reads *mongo.Database
}

// NewDB returns db, read and written through the same client.
func NewDB(db *mongo.Database) DB { return DB{Database: db} }

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
