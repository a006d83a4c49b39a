package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"svc/pipeline/pages"
	"svc/publish"
)

// A file is one precomputed answer held in memory with its ETag: the
// sha256 of the body, quoted (spec 4.1). Everything a response needs is
// computed once, when the snapshot is loaded, so serving it is a map lookup
// and a write: no parse, hash or format per request.
type file struct {
	body  []byte
	etag  string
	ctype string
	// header values, ready to assign
	etagH, ctypeH, lengthH []string
	// asOf is the document's top-level "asOf" (the adoption file repeats it
	// in X-Svc-Data-As-Of); "" when it has none.
	asOf string
}

func newFile(name string, body []byte) *file {
	f := newBareFile(name, body)
	if path.Ext(name) == ".json" {
		f.asOf = jsonField(body, "asOf")
	}
	return f
}

func newBareFile(name string, body []byte) *file {
	sum := sha256.Sum256(body)
	ctype := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".json":
		ctype = "application/json; charset=utf-8"
	case ".csv":
		ctype = "text/csv; charset=utf-8"
	}
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	return &file{body: body, etag: etag, ctype: ctype,
		etagH: []string{etag}, ctypeH: []string{ctype}, lengthH: []string{strconv.Itoa(len(body))}}
}

// maxCachedFile bounds what is held in memory; larger published files (the
// Parquet and CSV tables) are served from disk.
const maxCachedFile = 8 << 20

// loadFiles reads the precomputed files of the public tree (everything
// outside data/) into memory, keyed by their path under public/.
func loadFiles(public string) (map[string]*file, error) {
	out := map[string]*file{}
	err := filepath.WalkDir(public, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(public, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "data" || strings.HasPrefix(d.Name(), ".tmp") {
				return filepath.SkipDir
			}
			if rel == pages.StoresDir {
				// Store pages are rendered on request: the page files older
				// snapshots published here (one per store) are neither
				// served nor held, nor listed. Only the licence is.
				name := pages.StoresDir + "/" + publish.AttributionFile
				if b, err := os.ReadFile(filepath.Join(p, publish.AttributionFile)); err == nil {
					out[name] = newFile(name, b)
				}
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && rel != ".well-known" && !strings.HasPrefix(rel, ".well-known/") {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCachedFile {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = newFile(rel, b)
		return nil
	})
	return out, err
}

// loadDataJSON reads the JSON documents at the top of a version folder
// (its manifest and data package), keyed "<version>/<name>".
func loadDataJSON(dir, version string) map[string]*file {
	out := map[string]*file{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range ents {
		if e.IsDir() || path.Ext(e.Name()) != ".json" {
			continue
		}
		if fi, err := e.Info(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCachedFile {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			out[version+"/"+e.Name()] = newBareFile(e.Name(), b)
		}
	}
	return out
}

// cacheHeaders are the Cache-Control values of spec 4.1 and the choices the
// spec leaves to us (written in the OpenAPI description).
const (
	cacheWeeklyLatest = "public, max-age=3600, stale-while-revalidate=86400"
	cacheImmutable    = "public, max-age=31536000, immutable"
	cacheFiveMinutes  = "public, max-age=300"
	cachePrecheck     = "public, s-maxage=300, stale-while-revalidate=86400"
	cacheShort        = "public, max-age=60"
)

// serveFile writes a precomputed file with its ETag, honouring
// If-None-Match with 304. The body is in memory: no disk read per request.
func serveFile(w http.ResponseWriter, r *http.Request, f *file, cacheControl string) error {
	h := w.Header()
	h["Etag"] = f.etagH
	h["Cache-Control"] = cacheValues(cacheControl)
	h["X-Content-Type-Options"] = nosniff
	if etagMatch(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Type"] = f.ctypeH
	h["Content-Length"] = f.lengthH
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, err := w.Write(f.body)
		return err
	}
	return nil
}

var (
	nosniff     = []string{"nosniff"}
	cacheValueM = map[string][]string{}
)

// cacheValues returns a shared header value for a Cache-Control constant.
func cacheValues(v string) []string {
	if hv, ok := cacheValueM[v]; ok {
		return hv
	}
	return []string{v}
}

func init() {
	for _, v := range []string{cacheWeeklyLatest, cacheImmutable, cacheFiveMinutes, cachePrecheck, cacheShort, cachePage} {
		cacheValueM[v] = []string{v}
	}
}

// etagMatch implements If-None-Match's weak comparison over a list.
func etagMatch(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// jsonField reads one top-level string field of a JSON document.
func jsonField(body []byte, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[name], &s) != nil {
		return ""
	}
	return s
}

// dataFile serves a published dataset file from disk: the version folders
// never change (immutable caching), latest/ is an alias that moves (short
// caching). The ETag is the sha256 the manifest records, so the file is
// never hashed per request.
func (s *Server) dataFile(w http.ResponseWriter, r *http.Request) error {
	rel := strings.TrimPrefix(path.Clean("/"+r.PathValue("path")), "/")
	if rel == "" || rel == "." {
		return fail(ErrNotFound, "name a file: /data/latest/manifest.json lists them all")
	}
	snap := s.current()
	parts := strings.SplitN(rel, "/", 2)
	version := parts[0]
	cache := cacheImmutable
	if version == "latest" {
		cache = cacheShort
		if snap.version == "" {
			return fail(ErrUnavailable, "no dataset has been published yet")
		}
		version = snap.version
	}
	if version == "svc-100" {
		cache = cacheImmutable // the test set's files are frozen
	}
	if version == "shop" && !strings.HasPrefix(rel, "shop/screens/") {
		// The browser shoppers' evidence of the latest run; the
		// screenshots are named by their content.
		cache = cacheShort
	}
	if f := snap.dataJSON[version+strings.TrimPrefix(rel, parts[0])]; f != nil {
		return serveFile(w, r, f, cache) // the version's manifest and data package, from memory
	}
	full := filepath.Join(s.public, "data", filepath.FromSlash(version), filepath.FromSlash(strings.TrimPrefix(rel, parts[0])))
	fi, err := os.Stat(full)
	if err != nil || !fi.Mode().IsRegular() {
		return fail(ErrNotFound, "no published file /data/%s: /data/latest/manifest.json lists the files", rel)
	}
	f, err := os.Open(full)
	if err != nil {
		return fail(ErrNotFound, "no published file /data/%s", rel)
	}
	defer f.Close()
	h := w.Header()
	h.Set("Cache-Control", cache)
	if sum := snap.sha256[version+"/"+strings.TrimPrefix(strings.TrimPrefix(rel, parts[0]), "/")]; sum != "" {
		h.Set("ETag", `"`+sum+`"`)
	}
	switch path.Ext(full) {
	case ".json":
		h.Set("Content-Type", "application/json; charset=utf-8")
	case ".csv":
		h.Set("Content-Type", "text/csv; charset=utf-8")
	case ".parquet":
		h.Set("Content-Type", "application/vnd.apache.parquet")
	case ".txt":
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	http.ServeContent(w, r, "", time.Time{}, f)
	return nil
}
