// Package roles holds the organization member roles and their order.
package roles

// Role is an organization member role. The empty Role means no role (a guest).
type Role string

// The roles, from most to least powerful.
const (
	Admin   Role = "admin"
	Create  Role = "create"
	Review  Role = "review"
	Edit    Role = "edit"
	Comment Role = "comment"
	Read    Role = "read"
	Guest   Role = ""
)

// All lists the roles from most to least powerful.
var All = []Role{Admin, Create, Review, Edit, Comment, Read}

// Names lists the role names, for validation messages.
var Names = []string{"admin", "create", "review", "edit", "comment", "read"}

func rank(r Role) int {
	for i, a := range All {
		if a == r {
			return len(All) - i
		}
	}
	return 0
}

// Valid reports whether r is one of the named roles (a guest is not valid here).
func Valid(r Role) bool { return rank(r) > 0 }

// AtLeast reports whether r grants at least what min grants.
func (r Role) AtLeast(min Role) bool { return rank(r) >= rank(min) && rank(r) > 0 }

// Max returns the more powerful of two roles.
func Max(a, b Role) Role {
	if rank(a) >= rank(b) {
		return a
	}
	return b
}

// Caller is the calling user and their role in each organization they
// belong to, as the internal token carries them. A member without a role
// (a guest) is in Roles with the empty role.
type Caller struct {
	UserID string
	Roles  map[string]string
}

// Role returns the caller's role in org and whether they are a member.
func (c Caller) Role(org string) (Role, bool) {
	r, ok := c.Roles[org]
	return Role(r), ok
}
