package content

import (
	"testing"

	"github.com/docspub/platform/libs/apidoc/apidoctest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/service"
)

// TestRoutesAreDocumented: content registers on its engine exactly the /v1
// operations the API document gives it.
func TestRoutesAreDocumented(t *testing.T) {
	e := routes(logx.Discard(), &service.Core{}, Config{}, stores{}, services{})
	apidoctest.CheckRoutes(t, "content", e.Routes())
}
