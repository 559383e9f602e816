package revision

// Git is the commit a revision came from (a Git import) or went to (an
// export): GitSyncCommit.
type Git struct {
	OID     string `bson:"oid"`
	Message string `bson:"message"`
	Ref     string `bson:"ref,omitempty"`
	URL     string `bson:"url,omitempty"` // the commit's URL (repoCommitURL + oid), never credentials
	// CreatedByService is true when the platform made the commit (an export).
	CreatedByService bool `bson:"createdByService,omitempty"`
}

// GitView is a revision's git object as the API returns it.
type GitView struct {
	OID              string `json:"oid"`
	Message          string `json:"message"`
	CreatedByGitBook bool   `json:"createdByGitBook"`
	CreatedByService bool   `json:"createdByService"`
	URL              string `json:"url,omitempty"`
	Ref              string `json:"ref,omitempty"`
}

func (g *Git) view() *GitView {
	if g == nil {
		return nil
	}
	return &GitView{OID: g.OID, Message: g.Message, CreatedByGitBook: g.CreatedByService,
		CreatedByService: g.CreatedByService, URL: g.URL, Ref: g.Ref}
}
