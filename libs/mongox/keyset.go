package mongox

import "go.mongodb.org/mongo-driver/v2/bson"

// After returns the keyset filter for items after (field=val, _id=id) in a list
// sorted by field then _id, both ascending or both descending. Besides its
// $or, it bounds field by val (which the $or implies): a range an index on
// field seeks, where the $or alone would be tested on every item before the
// cursor (a page in the middle of 10,000 spaces took 256 ms on the embedded
// server, and MongoDB's planner bounds an $or's index scan no better).
func After(field string, desc bool, val any, id string) bson.M {
	op, bound := "$gt", "$gte"
	if desc {
		op, bound = "$lt", "$lte"
	}
	if field == "_id" {
		return bson.M{"_id": bson.M{op: id}}
	}
	return bson.M{field: bson.M{bound: val}, "$or": bson.A{
		bson.M{field: bson.M{op: val}},
		bson.M{field: val, "_id": bson.M{op: id}},
	}}
}

// Sort returns the sort document matching After.
func Sort(field string, desc bool) bson.D {
	dir := 1
	if desc {
		dir = -1
	}
	if field == "_id" {
		return bson.D{{Key: "_id", Value: dir}}
	}
	return bson.D{{Key: field, Value: dir}, {Key: "_id", Value: dir}}
}

// And combines filters, dropping empty ones.
func And(filters ...bson.M) bson.M {
	var parts bson.A
	for _, f := range filters {
		if len(f) > 0 {
			parts = append(parts, f)
		}
	}
	switch len(parts) {
	case 0:
		return bson.M{}
	case 1:
		return parts[0].(bson.M)
	}
	return bson.M{"$and": parts}
}
