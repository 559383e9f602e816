package contentclient

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/google/go-cmp/cmp"
)

// TestAnswerSpeaksForUs: content's error text never reaches our clients; its
// 4xx keep their status with our message, the rest is a 503.
func TestAnswerSpeaksForUs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		want   apierr.Body
	}{
		{"invalid", 400, body(400, "the content service refused the space as invalid")},
		{"refused token", 401, body(503, "content service unavailable (it answered 401)")},
		{"forbidden", 403, body(403, "no access to the space")},
		{"not found", 404, body(404, "space not found")},
		{"moved", 409, body(409, ErrMoved.Message)},
		{"too large", 413, body(413, "the space is larger than the content service accepts")},
		{"other 4xx", 429, body(429, "the content service refused the request for the space (it answered 429)")},
		{"failed", 500, body(503, "content service unavailable (it answered 500)")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peer := `{"error":{"code":0,"message":"content's own words"}}`
			res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(peer))}
			err := answer(res, "space")
			got := apierr.ToBody(err)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("answer(%d) (-got +want):\n%s", tc.status, diff)
			}
			if strings.Contains(err.Error(), "content's own words") {
				t.Errorf("answer(%d) = %q passes content's message on", tc.status, err)
			}
		})
	}
	res := &http.Response{StatusCode: 409, Body: io.NopCloser(strings.NewReader(""))}
	if err := answer(res, "space"); !errors.Is(err, ErrMoved) {
		t.Errorf("answer(409) = %v, want ErrMoved", err)
	}
}

func body(code int, msg string) apierr.Body {
	return apierr.Body{Error: apierr.BodyError{Code: code, Message: msg}}
}
