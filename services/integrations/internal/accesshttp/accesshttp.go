// Package accesshttp is the gin side of package access: the caller of a
// request, as internaltoken.Require verified it.
package accesshttp

import (
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/integrations/internal/access"
	"github.com/gin-gonic/gin"
)

// From is the caller of a request behind internaltoken.Require.
func From(c *gin.Context) access.Caller {
	return internaltoken.CallerOf(c)
}
