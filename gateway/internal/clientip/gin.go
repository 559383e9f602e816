package clientip

import (
	"github.com/docspub/platform/libs/httpx"
	"github.com/gin-gonic/gin"
)

// Identify is the gin middleware that derives the request's client
// address once (Client) for every use: the rate limits, the failed-auth
// limit, insights, the X-Forwarded-For services receive, and the access
// log line (httpx.ClientKey).
func (r *Resolver) Identify(c *gin.Context) {
	c.Set(httpx.ClientKey, r.Client(c.Request))
	c.Next()
}

// Of is the request's client address, as Identify derived it.
func Of(c *gin.Context) string { return c.GetString(httpx.ClientKey) }
