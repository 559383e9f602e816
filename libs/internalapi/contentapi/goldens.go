package contentapi

import (
	"embed"
	"io/fs"
)

//go:embed testdata/events
var goldens embed.FS

// Goldens are content's golden events (testdata/events: one per type and
// schema version, the current and the previous ones kept), for the tests
// of consumers, which must read every one of them.
func Goldens() fs.FS { return goldens }
