package gitrepo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/utils/ioutil"
)

// diskTransport is go-git's smart HTTP transport, except that a push's
// request (its commands and pack) is written to a temporary file and sent
// from it with its length, where go-git's builds it in memory: a push's
// memory does not grow with its pack, and servers that refuse chunked
// requests (git http-backend behind CGI) take it.
type diskTransport struct {
	transport.Transport
	http *http.Client
}

func (t diskTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	s, err := t.Transport.NewReceivePackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return &diskSession{ReceivePackSession: s, ep: ep, auth: auth, http: t.http}, nil
}

type diskSession struct {
	transport.ReceivePackSession
	ep   *transport.Endpoint
	auth transport.AuthMethod
	http *http.Client
}

// ReceivePack writes the push's request to a temporary file, posts it
// with its length and reads the remote's report.
func (s *diskSession) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	dir := ""
	var own *pack
	if o, ok := ctx.Value(opKey{}).(*op); ok {
		dir, own = o.tempDir, o.pack
	}
	f, err := os.CreateTemp(dir, "git-push-")
	if err != nil {
		return nil, fmt.Errorf("make the push's file: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := writeRequest(f, req, own); err != nil {
		return nil, err
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	res, err := s.post(ctx, f, size)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		return nil, fmt.Errorf("the remote answered %s to the push", res.Status)
	}
	return readReport(res.Body, req)
}

// writeRequest writes a push's request to w: its commands, then its pack.
// The operation's own pack (own, when set) replaces go-git's when go-git's
// has as many objects: go-git's encoder stops at its first write after its
// header (the pipe closed), which it takes for the end of its work.
func writeRequest(w io.Writer, req *packp.ReferenceUpdateRequest, own *pack) error {
	if own == nil || req.Packfile == nil {
		return req.Encode(w)
	}
	theirs := req.Packfile
	var head [12]byte
	if _, err := io.ReadFull(theirs, head[:]); err != nil {
		theirs.Close()
		return err
	}
	req.Packfile = nil
	err := req.Encode(w)
	if err == nil {
		if binary.BigEndian.Uint32(head[8:]) == uint32(len(own.hashes)) {
			theirs.Close()
			err = own.write(w)
		} else if _, err = w.Write(head[:]); err == nil {
			_, err = io.Copy(w, theirs)
			if cerr := theirs.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		theirs.Close()
		return err
	}
	return nil
}

// post sends the request in body, size bytes long, to the remote's
// receive-pack service.
func (s *diskSession) post(ctx context.Context, body io.Reader, size int64) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, s.ep.String()+"/"+transport.ReceivePackServiceName, io.NopCloser(body))
	if err != nil {
		return nil, err
	}
	hr.ContentLength = size
	hr.Header.Set("User-Agent", capability.DefaultAgent())
	hr.Header.Set("Accept", "application/x-git-receive-pack-result")
	hr.Header.Set("Content-Type", "application/x-git-receive-pack-request")
	if a, ok := s.auth.(*githttp.BasicAuth); ok && a != nil {
		a.SetAuth(hr)
	}
	return s.http.Do(hr)
}

// readReport reads the remote's report on a push from body (none when
// body is empty), demultiplexed when the request asked for a side band.
func readReport(body io.Reader, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	r, err := ioutil.NonEmptyReader(body)
	if errors.Is(err, ioutil.ErrEmptyReader) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if req.Capabilities.Supports(capability.Sideband64k) {
		r = sideband.NewDemuxer(sideband.Sideband64k, r)
	} else if req.Capabilities.Supports(capability.Sideband) {
		r = sideband.NewDemuxer(sideband.Sideband, r)
	}
	report := packp.NewReportStatus()
	if err := report.Decode(r); err != nil {
		return nil, err
	}
	return report, report.Error()
}
