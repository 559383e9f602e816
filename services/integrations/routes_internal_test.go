package integrations

import (
	"testing"

	"github.com/docspub/platform/libs/apidoc/apidoctest"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/logx"
)

// TestRoutesAreDocumented: integrations registers on its engine exactly the
// /v1 operations the API document gives it.
func TestRoutesAreDocumented(t *testing.T) {
	e := httpx.NewEngine(logx.Discard(), "integrations")
	register(e, apitest.Signer(t), nil, nil, nil)
	apidoctest.CheckRoutes(t, "integrations", e.Routes())
}
