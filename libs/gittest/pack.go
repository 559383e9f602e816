package gittest

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// Blob is a file of a commit written by NewPackedRepo: Size bytes read
// from Data.
type Blob struct {
	Name string // a file name in the top directory
	Size int64
	Data io.Reader
}

// NewPackedRepo makes the bare repository name with one commit on branch
// holding files (all in the top directory), and returns the commit. It
// writes the pack and its index itself, reading each file's bytes once and
// compressing them at zlib's fastest level: repositories of a gigabyte, or
// of hundreds of thousands of files, take seconds, where git add or git
// fast-import take tens of seconds.
func (s *Server) NewPackedRepo(t testing.TB, name, branch string, files []Blob) string {
	t.Helper()
	s.NewRepo(t, name, branch, nil)
	bare := filepath.Join(s.Root, name+".git")
	tmp := filepath.Join(bare, "objects", "pack", "tmp.pack")
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	pw := &packWriter{sum: sha1.New(), buf: make([]byte, 1<<20)}
	pw.zw, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed)
	pw.w = bufio.NewWriterSize(io.MultiWriter(f, pw.sum), 1<<20)
	err = pw.header(uint32(len(files) + 2))
	sorted := append([]Blob(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var tree bytes.Buffer
	for _, b := range sorted {
		if err != nil {
			break
		}
		var id []byte
		id, err = pw.object(3, b.Size, b.Data) // blob
		fmt.Fprintf(&tree, "100644 %s\x00", b.Name)
		tree.Write(id)
	}
	var treeID, commitID []byte
	if err == nil {
		treeID, err = pw.object(2, int64(tree.Len()), &tree)
	}
	if err == nil {
		c := fmt.Sprintf("tree %x\nauthor Test <test@example.com> 0 +0000\ncommitter Test <test@example.com> 0 +0000\n\ninitial\n", treeID)
		commitID, err = pw.object(1, int64(len(c)), bytes.NewReader([]byte(c)))
	}
	if err == nil {
		err = pw.w.Flush()
	}
	packSum := pw.sum.Sum(nil)
	if err == nil {
		_, err = f.Write(packSum)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("write the pack of %s: %v", name, err)
	}
	base := filepath.Join(bare, "objects", "pack", "pack-"+hex.EncodeToString(packSum))
	if err := os.Rename(tmp, base+".pack"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".idx", pw.index(packSum), 0o644); err != nil {
		t.Fatal(err)
	}
	commit := hex.EncodeToString(commitID)
	git(t, bare, "update-ref", "refs/heads/"+branch, commit)
	return commit
}

// packWriter writes a pack's objects (never deltas) and keeps what its
// index needs.
type packWriter struct {
	w       *bufio.Writer
	zw      *zlib.Writer
	buf     []byte
	sum     hash.Hash
	off     int64
	entries []packEntry
}

type packEntry struct {
	id  []byte
	off int64
	crc uint32
}

func (p *packWriter) header(count uint32) error {
	var h [12]byte
	copy(h[:], "PACK")
	binary.BigEndian.PutUint32(h[4:], 2)
	binary.BigEndian.PutUint32(h[8:], count)
	_, err := p.w.Write(h[:])
	p.off += 12
	return err
}

// object writes an object of type typ (1 commit, 2 tree, 3 blob) and size
// bytes read from r, and returns its id.
func (p *packWriter) object(typ byte, size int64, r io.Reader) ([]byte, error) {
	crc := crc32.NewIEEE()
	cw := &countWriter{w: io.MultiWriter(p.w, crc)}
	// The object's header: its type and size, seven bits a byte after the first four.
	var h []byte
	c := typ<<4 | byte(size&15)
	for n := size >> 4; n > 0; n >>= 7 {
		h = append(h, c|0x80)
		c = byte(n & 0x7f)
	}
	h = append(h, c)
	if _, err := cw.Write(h); err != nil {
		return nil, err
	}
	id := sha1.New()
	fmt.Fprintf(id, "%s %d\x00", [...]string{1: "commit", 2: "tree", 3: "blob"}[typ], size)
	p.zw.Reset(cw)
	n, err := io.CopyBuffer(io.MultiWriter(p.zw, id), io.LimitReader(r, size), p.buf)
	if err == nil && n != size {
		err = fmt.Errorf("%d bytes of %d", n, size)
	}
	if err == nil {
		err = p.zw.Close()
	}
	if err != nil {
		return nil, err
	}
	sum := id.Sum(nil)
	p.entries = append(p.entries, packEntry{id: sum, off: p.off, crc: crc.Sum32()})
	p.off += cw.n
	return sum, nil
}

// index is the pack's index, version 2.
func (p *packWriter) index(packSum []byte) []byte {
	es := append([]packEntry(nil), p.entries...)
	sort.Slice(es, func(i, j int) bool { return bytes.Compare(es[i].id, es[j].id) < 0 })
	var b bytes.Buffer
	b.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fan [256]uint32
	for _, e := range es {
		fan[e.id[0]]++
	}
	var total uint32
	for i := range fan {
		total += fan[i]
		_ = binary.Write(&b, binary.BigEndian, total)
	}
	for _, e := range es {
		b.Write(e.id)
	}
	for _, e := range es {
		_ = binary.Write(&b, binary.BigEndian, e.crc)
	}
	for _, e := range es {
		_ = binary.Write(&b, binary.BigEndian, uint32(e.off)) // packs here stay under 2 GiB
	}
	b.Write(packSum)
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Zeros reads zero bytes without end.
var Zeros io.Reader = zeros{}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
