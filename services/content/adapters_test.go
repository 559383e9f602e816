package content

import (
	"testing"

	"github.com/docspub/platform/services/content/internal/importer"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/google/go-cmp/cmp"
)

func TestReuseFilesKeepsTheFilesARevisionHas(t *testing.T) {
	base := []revision.File{{ID: "old", Name: "logo.png", ContentType: "image/png", Size: 70}}
	res := importer.Result{
		Pages: []importer.Imported{{Path: "home", Markdown: "![logo](files/new1) ![photo](files/new2)"}},
		Files: []revision.File{
			{ID: "new1", Name: "logo.png", ContentType: "image/png", Size: 70},
			{ID: "new2", Name: "photo.jpg", ContentType: "image/jpeg", Size: 900},
		},
	}
	got := reuseFiles(base, res)
	if diff := cmp.Diff("![logo](files/old) ![photo](files/new2)", got.Pages[0].Markdown); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
	if len(got.Files) != 1 || got.Files[0].ID != "new2" {
		t.Errorf("files %+v, want only the new photo", got.Files)
	}
}
