package contracttest

import "testing"

func TestCheck(t *testing.T) {
	good := []byte(`{"object":"user","id":"u1","displayName":"Ada","urls":{"location":"http://x/v1/users/u1"}}`)
	if err := Check("User", good); err != nil {
		t.Fatalf("valid user rejected: %v", err)
	}
	if err := Check("User", []byte(`{"object":"user","id":"u1"}`)); err == nil {
		t.Fatal("user without displayName accepted")
	}
	list := []byte(`{"count":1,"items":[{"label":"x"}]}`)
	if err := CheckOperation("listOrganizationsForAuthenticatedUser", 200, list); err == nil {
		t.Fatal("list of non-organizations accepted")
	}
	if err := CheckOperation("removeMemberFromOrganizationById", 204, nil); err != nil {
		t.Fatalf("empty 204 rejected: %v", err)
	}
	if err := CheckOperation("removeMemberFromOrganizationById", 200, nil); err == nil {
		t.Fatal("wrong status accepted")
	}
	if n := len(Operations(t)); n != 126 {
		t.Fatalf("got %d operations, want 126", n)
	}
}
