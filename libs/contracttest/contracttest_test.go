package contracttest

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	good := []byte(`{"object":"user","id":"u1","displayName":"Ada","urls":{"location":"http://x/v1/users/u1"}}`)
	if err := Check("User", good); err != nil {
		t.Fatalf("valid user rejected: %v", err)
	}
	if err := Check("User", []byte(`{"object":"user","id":"u1"}`)); err == nil {
		t.Fatal("user without displayName accepted")
	}
	if err := CheckOperation("listOrganizationsForAuthenticatedUser", 200, []byte(`{"count":0,"items":[]}`)); err != nil {
		t.Fatalf("empty list rejected: %v", err)
	}
	list := []byte(`{"count":1,"items":[{"label":"x"}]}`)
	if err := CheckOperation("listOrganizationsForAuthenticatedUser", 200, list); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("list of non-organizations: %v, want a mismatch", err)
	}
	// A path with parameters: its pointer holds braces.
	if err := CheckOperation("getSpaceById", 200, []byte(`{"object":"space"}`)); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("incomplete space: %v, want a mismatch", err)
	}
	if err := CheckOperation("removeMemberFromOrganizationById", 204, nil); err != nil {
		t.Fatalf("empty 204 rejected: %v", err)
	}
	if err := CheckOperation("removeMemberFromOrganizationById", 200, nil); err == nil {
		t.Fatal("wrong status accepted")
	}
	if err := CheckOperation("deleteSpaceById", 205, []byte(`{}`)); err == nil {
		t.Fatal("205 with a body accepted")
	}
	// An operation of this platform only (x-docspub-extension).
	if err := CheckOperation("getCustomField", 200, []byte(`{"object":"custom-field"}`)); err == nil {
		t.Fatal("incomplete custom field accepted")
	}
	if err := CheckOperation("noSuchOperation", 200, nil); err == nil {
		t.Fatal("unknown operation accepted")
	}
}

func TestOperations(t *testing.T) {
	ops := Operations(t)
	if n := len(ops); n < 126 {
		t.Fatalf("got %d operations, want the 126 of the contract and more", n)
	}
	byID := map[string]Operation{}
	for _, op := range ops {
		byID[op.OperationID] = op
	}
	for id, want := range map[string]string{"getSpaceById": "Space", "listSites": "inline", "deleteSpaceById": "-"} {
		if got := byID[id].Schema; got != want {
			t.Errorf("%s: Schema = %q, want %q", id, got, want)
		}
	}
}
