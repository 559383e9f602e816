package contentapi

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/envelope"
)

// Topic is where content publishes its events (the envelope of
// libs/envelope, keyed by subject).
const Topic = "content.events"

// Content's event types, <resource>.<verb>.
const (
	SpaceCreated     = "space.created"
	SpaceUpdated     = "space.updated"
	SpaceDeleted     = "space.deleted"
	SpaceRestored    = "space.restored"
	SpaceMoved       = "space.moved"
	SpaceTransferred = "space.transferred"
	SpacePurged      = "space.purged"

	CollectionCreated     = "collection.created"
	CollectionUpdated     = "collection.updated"
	CollectionDeleted     = "collection.deleted"
	CollectionMoved       = "collection.moved"
	CollectionTransferred = "collection.transferred"

	CommentCreated      = "comment.created"
	CommentUpdated      = "comment.updated"
	CommentDeleted      = "comment.deleted"
	CommentReplyCreated = "comment_reply.created"
	CommentReplyUpdated = "comment_reply.updated"

	CustomFieldCreated       = "custom_field.created"
	CustomFieldUpdated       = "custom_field.updated"
	CustomFieldDeleted       = "custom_field.deleted"
	CustomFieldValuesUpdated = "custom_field_values.updated"

	ChangeRequestCreated = "change_request.created"
	ChangeRequestUpdated = "change_request.updated"
	ChangeRequestMerged  = "change_request.merged"

	RevisionCreated = "revision.created"
)

// Schema versions of the payloads content writes now. Bump one when its
// payload changes incompatibly (a field removed, renamed or retyped), keep
// the previous version's golden (testdata/events) and give the schema a
// Previous decoder; consumers read the current and the previous version.
const (
	SpaceVersion             = 1
	CollectionVersion        = 1
	CommentVersion           = 1
	CommentReplyVersion      = 1
	CustomFieldVersion       = 1
	CustomFieldValuesVersion = 1
	ChangeRequestVersion     = 1
	RevisionVersion          = 1
)

// Events is the catalogue of content's event types and their versions.
var Events = envelope.Catalogue{
	SpaceCreated: SpaceVersion, SpaceUpdated: SpaceVersion, SpaceDeleted: SpaceVersion,
	SpaceRestored: SpaceVersion, SpaceMoved: SpaceVersion, SpaceTransferred: SpaceVersion, SpacePurged: SpaceVersion,
	CollectionCreated: CollectionVersion, CollectionUpdated: CollectionVersion, CollectionDeleted: CollectionVersion,
	CollectionMoved: CollectionVersion, CollectionTransferred: CollectionVersion,
	CommentCreated: CommentVersion, CommentUpdated: CommentVersion, CommentDeleted: CommentVersion,
	CommentReplyCreated: CommentReplyVersion, CommentReplyUpdated: CommentReplyVersion,
	CustomFieldCreated: CustomFieldVersion, CustomFieldUpdated: CustomFieldVersion, CustomFieldDeleted: CustomFieldVersion,
	CustomFieldValuesUpdated: CustomFieldValuesVersion,
	ChangeRequestCreated:     ChangeRequestVersion, ChangeRequestUpdated: ChangeRequestVersion, ChangeRequestMerged: ChangeRequestVersion,
	RevisionCreated: RevisionVersion,
}

func newEvent(typ, org, subject string, data any) envelope.Event {
	return envelope.NewVersion(typ, Events[typ], org, subject, data)
}

// Space is the payload of the space.* events: the space as the API
// returns it, without the caller's permissions. The API's view is this
// with Permissions set.
type Space struct {
	Object              string       `json:"object"` // "space"
	ID                  string       `json:"id"`
	Title               string       `json:"title"`
	Emoji               string       `json:"emoji"`
	Visibility          string       `json:"visibility"`
	CreatedAt           time.Time    `json:"createdAt"`
	UpdatedAt           time.Time    `json:"updatedAt"` // the view's version: set on every change
	DeletedAt           *time.Time   `json:"deletedAt,omitempty"`
	EditMode            string       `json:"editMode"`
	Organization        string       `json:"organization"`
	Parent              string       `json:"parent,omitempty"`
	Revision            string       `json:"revision"` // the current revision
	DefaultLevel        DefaultLevel `json:"defaultLevel"`
	Comments            int          `json:"comments"`
	ChangeRequests      int          `json:"changeRequests"`
	ChangeRequestsOpen  int          `json:"changeRequestsOpen"`
	ChangeRequestsDraft int          `json:"changeRequestsDraft"`
	MergeRules          MergeRules   `json:"mergeRules"`
	GitSync             *GitSync     `json:"gitSync,omitempty"`
	SpaceSettings
	URLs SpaceURLs `json:"urls"`
}

// Languages are the API's TranslationLanguage codes: a space's language,
// a translation's targets.
var Languages = []string{"en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "zh-tw", "yue", "ko",
	"ar", "hi", "nl", "pl", "tr", "sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id", "ms", "he",
	"uk", "sk", "bg", "hr", "lt", "lv", "et", "sl"}

// SpaceSettings are the fields of a space an admin sets as they are
// (content's space.Settings, whose fields are these, stores them).
type SpaceSettings struct {
	// GitBookSpaceID is the GitBook space this space was migrated from:
	// published sites resolve app.gitbook.com/s/<id>/<path> links to it.
	GitBookSpaceID string `json:"gitbookSpaceId,omitempty"`
	// Language is the language the space is written in (Languages).
	Language string `json:"language,omitempty"`
}

// DefaultLevel is the level members get on a space or collection:
// "inherit", a role name, or "" (no access), which is JSON null.
type DefaultLevel string

// MarshalJSON renders no access ("") as null.
func (d DefaultLevel) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(d))
}

// UnmarshalJSON reads null as "".
func (d *DefaultLevel) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*d = ""
	if s != nil {
		*d = DefaultLevel(*s)
	}
	return nil
}

// MergeRules are a space's merge rules.
type MergeRules struct {
	Type string `json:"type"`
}

// SpaceURLs are a space's or a collection's URLs.
type SpaceURLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
}

// SpacePermissions is a space's permissions object for one caller: the
// API's spaces carry it, events never; sites renders it on the spaces its
// site spaces embed.
type SpacePermissions struct {
	View               bool `json:"view"`
	Access             bool `json:"access"`
	Admin              bool `json:"admin"`
	ViewInviteLinks    bool `json:"viewInviteLinks"`
	Edit               bool `json:"edit"`
	TriggerGitSync     bool `json:"triggerGitSync"`
	Comment            bool `json:"comment"`
	Merge              bool `json:"merge"`
	Review             bool `json:"review"`
	InstallIntegration bool `json:"installIntegration"`
}

// SpaceSchema reads the space.* payloads.
var SpaceSchema = envelope.Schema[Space]{Current: SpaceVersion}

// DecodeSpace reads the payload of a space.* event.
func DecodeSpace(ev envelope.Event) (Space, error) { return SpaceSchema.Decode(ev) }

// Space events: the organization is the space's (a transfer's: the
// space's new organization), the subject the space.
func NewSpaceCreated(s Space) envelope.Event { return newEvent(SpaceCreated, s.Organization, s.ID, s) }
func NewSpaceUpdated(s Space) envelope.Event { return newEvent(SpaceUpdated, s.Organization, s.ID, s) }
func NewSpaceDeleted(s Space) envelope.Event { return newEvent(SpaceDeleted, s.Organization, s.ID, s) }
func NewSpaceRestored(s Space) envelope.Event {
	return newEvent(SpaceRestored, s.Organization, s.ID, s)
}
func NewSpaceMoved(s Space) envelope.Event { return newEvent(SpaceMoved, s.Organization, s.ID, s) }
func NewSpaceTransferred(s Space) envelope.Event {
	return newEvent(SpaceTransferred, s.Organization, s.ID, s)
}
func NewSpacePurged(s Space) envelope.Event { return newEvent(SpacePurged, s.Organization, s.ID, s) }

// Collection is the payload of the collection.* events: the collection
// as the API returns it, without the caller's permissions.
type Collection struct {
	Object       string       `json:"object"` // "collection"
	ID           string       `json:"id"`
	Title        string       `json:"title"`
	Description  string       `json:"description,omitempty"`
	Organization string       `json:"organization"`
	Parent       string       `json:"parent,omitempty"`
	DefaultLevel DefaultLevel `json:"defaultLevel"`
	URLs         SpaceURLs    `json:"urls"`
}

// CollectionSchema reads the collection.* payloads.
var CollectionSchema = envelope.Schema[Collection]{Current: CollectionVersion}

// Collection events: the organization is the collection's, the subject the collection.
func NewCollectionCreated(c Collection) envelope.Event {
	return newEvent(CollectionCreated, c.Organization, c.ID, c)
}
func NewCollectionUpdated(c Collection) envelope.Event {
	return newEvent(CollectionUpdated, c.Organization, c.ID, c)
}
func NewCollectionDeleted(c Collection) envelope.Event {
	return newEvent(CollectionDeleted, c.Organization, c.ID, c)
}
func NewCollectionMoved(c Collection) envelope.Event {
	return newEvent(CollectionMoved, c.Organization, c.ID, c)
}
func NewCollectionTransferred(c Collection) envelope.Event {
	return newEvent(CollectionTransferred, c.Organization, c.ID, c)
}

// Comment is the payload of the comment.* events: the comment's ids,
// place, status and counts. It never lists the users who reacted, nor the
// body, so that an event stays small whatever the comment holds;
// consumers read the rest through the API.
type Comment struct {
	Object        string          `json:"object"` // "comment"
	ID            string          `json:"id"`
	Space         string          `json:"space"`
	ChangeRequest string          `json:"changeRequest,omitempty"`
	Revision      string          `json:"revision"`
	Page          string          `json:"page,omitempty"`
	Node          string          `json:"node,omitempty"`
	PostedBy      string          `json:"postedBy"` // user id
	PostedAt      time.Time       `json:"postedAt"`
	EditedAt      *time.Time      `json:"editedAt,omitempty"`
	Status        string          `json:"status"` // open or resolved
	ResolvedAt    *time.Time      `json:"resolvedAt,omitempty"`
	ResolvedBy    string          `json:"resolvedBy,omitempty"` // user id
	Replies       int             `json:"replies"`
	Reactions     []ReactionCount `json:"reactions"`
	URLs          LocationURLs    `json:"urls"`
}

// CommentReply is the payload of the comment_reply.* events (see Comment).
type CommentReply struct {
	Object        string          `json:"object"` // "comment-reply"
	ID            string          `json:"id"`
	Comment       string          `json:"comment"`
	Space         string          `json:"space"`
	ChangeRequest string          `json:"changeRequest,omitempty"`
	PostedBy      string          `json:"postedBy"` // user id
	PostedAt      time.Time       `json:"postedAt"`
	EditedAt      *time.Time      `json:"editedAt,omitempty"`
	Reactions     []ReactionCount `json:"reactions"`
	URLs          LocationURLs    `json:"urls"`
}

// ReactionCount is how many users reacted with one emoji.
type ReactionCount struct {
	Emoji string `json:"emoji"`
	Count int    `json:"count"`
}

// LocationURLs is a urls object with only the API location.
type LocationURLs struct {
	Location string `json:"location"`
}

// CommentSchema and CommentReplySchema read the comment payloads.
var (
	CommentSchema      = envelope.Schema[Comment]{Current: CommentVersion}
	CommentReplySchema = envelope.Schema[CommentReply]{Current: CommentReplyVersion}
)

// Comment events: org is the space's organization, the subject the comment.
func NewCommentCreated(org string, c Comment) envelope.Event {
	return newEvent(CommentCreated, org, c.ID, c)
}
func NewCommentUpdated(org string, c Comment) envelope.Event {
	return newEvent(CommentUpdated, org, c.ID, c)
}
func NewCommentDeleted(org string, c Comment) envelope.Event {
	return newEvent(CommentDeleted, org, c.ID, c)
}

// Reply events: org is the space's organization, the subject the reply.
func NewCommentReplyCreated(org string, r CommentReply) envelope.Event {
	return newEvent(CommentReplyCreated, org, r.ID, r)
}
func NewCommentReplyUpdated(org string, r CommentReply) envelope.Event {
	return newEvent(CommentReplyUpdated, org, r.ID, r)
}

// CustomField is the payload of the custom_field.* events: the definition
// as the API returns it, with the permissions of the member who changed it.
type CustomField struct {
	ID          string                 `json:"id"`
	Name        string                 `json:"name"`
	Title       string                 `json:"title"`
	Description string                 `json:"description"`
	Type        string                 `json:"type"`
	Placeholder string                 `json:"placeholder"`
	Options     []string               `json:"options,omitempty"`
	CreatedAt   time.Time              `json:"createdAt"`
	UpdatedAt   time.Time              `json:"updatedAt"`
	URLs        LocationURLs           `json:"urls"`
	Permissions CustomFieldPermissions `json:"permissions"`
}

// CustomFieldPermissions is a custom field's permissions object.
type CustomFieldPermissions struct {
	View bool `json:"view"`
	Edit bool `json:"edit"`
}

// CustomFieldValue is an item of the custom_field_values.updated payload:
// a definition and, when the space has one, its value.
type CustomFieldValue struct {
	CustomField CustomField `json:"customField"`
	Value       any         `json:"value,omitempty"`
}

// CustomFieldSchema and CustomFieldValuesSchema read the custom field payloads.
var (
	CustomFieldSchema       = envelope.Schema[CustomField]{Current: CustomFieldVersion}
	CustomFieldValuesSchema = envelope.Schema[[]CustomFieldValue]{Current: CustomFieldValuesVersion}
)

// Custom field events: org is the definition's organization, the subject the definition.
func NewCustomFieldCreated(org string, f CustomField) envelope.Event {
	return newEvent(CustomFieldCreated, org, f.ID, f)
}
func NewCustomFieldUpdated(org string, f CustomField) envelope.Event {
	return newEvent(CustomFieldUpdated, org, f.ID, f)
}
func NewCustomFieldDeleted(org string, f CustomField) envelope.Event {
	return newEvent(CustomFieldDeleted, org, f.ID, f)
}

// NewCustomFieldValuesUpdated is the event of space's values (every
// definition of org, each with the space's value if any).
func NewCustomFieldValuesUpdated(org, space string, vs []CustomFieldValue) envelope.Event {
	return newEvent(CustomFieldValuesUpdated, org, space, vs)
}

// ChangeRequest is the payload of the change_request.* events: the change
// request as the API returns it.
type ChangeRequest struct {
	Object                 string            `json:"object"` // "change-request"
	ID                     string            `json:"id"`
	Number                 int               `json:"number"`
	Status                 string            `json:"status"`
	Subject                string            `json:"subject"`
	CreatedBy              User              `json:"createdBy"`
	CreatedAt              time.Time         `json:"createdAt"`
	UpdatedAt              time.Time         `json:"updatedAt"`
	MergedBy               *User             `json:"mergedBy,omitempty"`
	MergedAt               *time.Time        `json:"mergedAt,omitempty"`
	Space                  string            `json:"space"`
	Revision               string            `json:"revision"`
	RevisionInitial        string            `json:"revisionInitial"`
	RevisionMergedAncestor string            `json:"revisionMergedAncestor,omitempty"`
	RevisionMerged         string            `json:"revisionMerged,omitempty"`
	Comments               int               `json:"comments"`
	Outdated               bool              `json:"outdated"`
	URLs                   ChangeRequestURLs `json:"urls"`
}

// ChangeRequestURLs are a change request's URLs.
type ChangeRequestURLs struct {
	App      string `json:"app"`
	Location string `json:"location"`
}

// User is a user as content renders it (from its projection of identity's users).
type User struct {
	Object      string       `json:"object"` // "user"
	ID          string       `json:"id"`
	DisplayName string       `json:"displayName"`
	Email       string       `json:"email,omitempty"`
	PhotoURL    string       `json:"photoURL,omitempty"`
	URLs        LocationURLs `json:"urls"`
}

// ChangeRequestSchema reads the change_request.* payloads.
var ChangeRequestSchema = envelope.Schema[ChangeRequest]{Current: ChangeRequestVersion}

// Change request events: org is the space's organization, the subject the change request.
func NewChangeRequestCreated(org string, cr ChangeRequest) envelope.Event {
	return newEvent(ChangeRequestCreated, org, cr.ID, cr)
}
func NewChangeRequestUpdated(org string, cr ChangeRequest) envelope.Event {
	return newEvent(ChangeRequestUpdated, org, cr.ID, cr)
}
func NewChangeRequestMerged(org string, cr ChangeRequest) envelope.Event {
	return newEvent(ChangeRequestMerged, org, cr.ID, cr)
}

// Revision is the payload of revision.created: the revision's identity,
// lineage and size (its content is read through the API).
type Revision struct {
	ID            string    `json:"id"`
	Space         string    `json:"space"`
	Type          string    `json:"type"`
	Parents       []string  `json:"parents"`
	MergedFrom    string    `json:"mergedFrom,omitempty"`
	ChangeRequest string    `json:"changeRequest"`
	Pages         int       `json:"pages"`
	Files         int       `json:"files"`
	CreatedAt     time.Time `json:"createdAt"`
}

// RevisionSchema reads the revision.created payload.
var RevisionSchema = envelope.Schema[Revision]{Current: RevisionVersion}

// EventSpace is the space an event of a comment, a comment reply, a change
// request or a revision is about: its payload's space, read with its
// type's schema. Another type is an error wrapping envelope.ErrUnknown,
// and so is a newer version; a payload that cannot be read is one
// wrapping envelope.ErrBadData (see envelope.Schema.Decode). With an
// error the space is "".
func EventSpace(ev envelope.Event) (string, error) {
	var space string
	var err error
	switch ev.Type {
	case CommentCreated, CommentUpdated, CommentDeleted:
		var c Comment
		c, err = CommentSchema.Decode(ev)
		space = c.Space
	case CommentReplyCreated, CommentReplyUpdated:
		var r CommentReply
		r, err = CommentReplySchema.Decode(ev)
		space = r.Space
	case ChangeRequestCreated, ChangeRequestUpdated, ChangeRequestMerged:
		var cr ChangeRequest
		cr, err = ChangeRequestSchema.Decode(ev)
		space = cr.Space
	case RevisionCreated:
		var r Revision
		r, err = RevisionSchema.Decode(ev)
		space = r.Space
	default:
		err = fmt.Errorf("%w: %s names no space in its payload", envelope.ErrUnknown, ev.Type)
	}
	if err != nil {
		return "", err
	}
	return space, nil
}

// NewRevisionCreated is the event of a revision of org (subject: the revision).
func NewRevisionCreated(org string, r Revision) envelope.Event {
	return newEvent(RevisionCreated, org, r.ID, r)
}
