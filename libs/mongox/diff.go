package mongox

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Diff returns the update document ($set and $unset) that turns the
// stored form of before into that of after, top-level field by field; the
// fields named in keep (the id, a version the store counts) are left out.
// It is empty when nothing changed.
func Diff(before, after any, keep ...string) (bson.M, error) {
	was, err := topFields(before)
	if err != nil {
		return nil, err
	}
	now, err := topFields(after)
	if err != nil {
		return nil, err
	}
	for _, k := range keep {
		delete(was, k)
		delete(now, k)
	}
	set, unset := bson.M{}, bson.M{}
	for k, v := range now {
		if old, ok := was[k]; !ok || !old.Equal(v) {
			set[k] = v
		}
	}
	for k := range was {
		if _, ok := now[k]; !ok {
			unset[k] = ""
		}
	}
	upd := bson.M{}
	if len(set) > 0 {
		upd["$set"] = set
	}
	if len(unset) > 0 {
		upd["$unset"] = unset
	}
	return upd, nil
}

func topFields(doc any) (map[string]bson.RawValue, error) {
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", doc, err)
	}
	elems, err := bson.Raw(raw).Elements()
	if err != nil {
		return nil, fmt.Errorf("read %T: %w", doc, err)
	}
	out := make(map[string]bson.RawValue, len(elems))
	for _, e := range elems {
		out[e.Key()] = e.Value()
	}
	return out, nil
}
