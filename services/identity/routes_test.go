package identity

import (
	"testing"

	"github.com/docspub/platform/libs/apidoc/apidoctest"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/logx"
)

// TestRoutesAreDocumented: identity registers on its engine exactly the /v1
// operations the API document gives it.
func TestRoutesAreDocumented(t *testing.T) {
	e := httpx.NewEngine(logx.Discard(), "identity")
	services{}.register(e, apitest.Signer(t))
	apidoctest.CheckRoutes(t, "identity", e.Routes())
}
