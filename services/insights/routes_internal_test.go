package insights

import (
	"testing"

	"github.com/docspub/platform/libs/apidoc/apidoctest"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/services/insights/internal/insightshttp"
)

// TestRoutesAreDocumented: insights registers on its engine exactly the /v1
// operations the API document gives it.
func TestRoutesAreDocumented(t *testing.T) {
	e := httpx.NewEngine(logx.Discard(), "insights")
	register(e, apitest.Signer(t), insightshttp.New(nil, nil, nil, nil))
	apidoctest.CheckRoutes(t, "insights", e.Routes())
}
