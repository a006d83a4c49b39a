package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// pageRoutes are the routes of pages for people (pages.go), left out of the
// OpenAPI description on purpose: they answer HTML, not the API. A route is
// a page when its path starts with one of these prefixes or is one of
// pagePaths (the home page, its index.html alias, the attribution text, the
// datasets page and the pages' icon).
var pageRoutePrefixes = []string{"/directory/", "/stores/", "/leaderboard/", "/weekly/", "/validate/", "/datasets/", "/assets/"}

var pagePaths = []string{"/{$}", "/index.html", "/ATTRIBUTION.txt", "/data/{$}", "/favicon.ico"}

func isPageRoute(path string) bool {
	if slices.Contains(pagePaths, path) {
		return true
	}
	for _, p := range pageRoutePrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

type openapiDoc struct {
	OpenAPI  string                                `json:"openapi"`
	Info     struct{ Version string }              `json:"info"`
	Security *[]any                                `json:"security"`
	Paths    map[string]map[string]json.RawMessage `json:"paths"`
}

func loadOpenAPI(t *testing.T) openapiDoc {
	t.Helper()
	var d openapiDoc
	if err := json.Unmarshal(openapiJSON, &d); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	return d
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// describedOps lists "METHOD /path" of every operation of the description.
func describedOps(d openapiDoc) []string {
	var ops []string
	for p, item := range d.Paths {
		for m := range item {
			if slices.Contains(httpMethods, m) {
				ops = append(ops, strings.ToUpper(m)+" "+p)
			}
		}
	}
	slices.Sort(ops)
	return ops
}

// openapiPath turns a ServeMux pattern path into its OpenAPI form.
func openapiPath(p string) string {
	return strings.ReplaceAll(p, "...}", "}")
}

// exampleHolder matches the pointers of the objects that carry a schema and
// examples: media types and parameters.
var exampleHolder = regexp.MustCompile(`(/content/[^/]+|/parameters/[^/]+)$`)

var pathParam = regexp.MustCompile(`\{[^}]+\}`)

func TestOpenAPIMatchesRoutes(t *testing.T) {
	d := loadOpenAPI(t)
	described := describedOps(d)
	mux := http.NewServeMux()
	for _, rt := range routeTable {
		method, path, _ := strings.Cut(rt.pattern, " ")
		pat := rt.pattern
		mux.HandleFunc(pat, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, pat) })
		if isPageRoute(path) {
			continue
		}
		op := method + " " + openapiPath(path)
		if !slices.Contains(described, op) {
			t.Errorf("registered route %s is missing from openapi.json (as %s)", rt.pattern, op)
		}
	}
	// Every described operation is served by a registered, non-page route:
	// a concrete URL (path parameters filled in) reaches it through a mux of
	// routeTable.
	for _, op := range described {
		method, path, _ := strings.Cut(op, " ")
		concrete := pathParam.ReplaceAllString(path, "x")
		req := httptest.NewRequest(method, concrete, nil)
		_, pat := mux.Handler(req)
		if pat == "" {
			t.Errorf("openapi.json describes %s, which no registered route serves", op)
			continue
		}
		pm, pp, _ := strings.Cut(pat, " ")
		if pm != method || isPageRoute(pp) {
			t.Errorf("openapi.json describes %s, served by %q (not an API route of that method)", op, pat)
		}
	}
}

func TestOpenAPIVersionsAndSecurity(t *testing.T) {
	d := loadOpenAPI(t)
	if d.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", d.OpenAPI)
	}
	if d.Info.Version != "1.1.0" {
		t.Errorf("info.version = %q, want 1.1.0", d.Info.Version)
	}
	if d.Security == nil || len(*d.Security) != 0 {
		t.Errorf("security must be present and an empty array")
	}
	if !bytes.Contains(openapiJSON, []byte(`"security": []`)) {
		t.Errorf("security is not written as an empty array")
	}
}

func TestOpenAPIOperationIDs(t *testing.T) {
	d := loadOpenAPI(t)
	seen := map[string]string{}
	for p, item := range d.Paths {
		for m, raw := range item {
			if !slices.Contains(httpMethods, m) {
				continue
			}
			var o struct {
				OperationID string `json:"operationId"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatal(err)
			}
			where := strings.ToUpper(m) + " " + p
			if o.OperationID == "" {
				t.Errorf("%s has no operationId", where)
				continue
			}
			if prev, dup := seen[o.OperationID]; dup {
				t.Errorf("operationId %q is used by %s and %s", o.OperationID, prev, where)
			}
			seen[o.OperationID] = where
		}
	}
	for id, want := range map[string]string{
		"getStoreCard":    "GET /api/store",
		"askSvc":          "GET /api/ask",
		"datasetManifest": "GET /data/latest/manifest.json",
		"reportCheckout":  "POST " + reportPath,
	} {
		if seen[id] != want {
			t.Errorf("operationId %s is at %q, want %q", id, seen[id], want)
		}
	}
}

// TestOpenAPIExamples validates every example of the description against
// the schema beside it (OpenAPI 3.1 schemas are JSON Schema 2020-12).
func TestOpenAPIExamples(t *testing.T) {
	const id = "https://svc.invalid/openapi.json"
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapiJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch v := v.(type) {
		case map[string]any:
			if _, hasSchema := v["schema"]; hasSchema && exampleHolder.MatchString(ptr) {
				var examples []any
				if ex, ok := v["example"]; ok {
					examples = append(examples, ex)
				}
				if exs, ok := v["examples"].(map[string]any); ok {
					for _, e := range exs {
						if m, ok := e.(map[string]any); ok {
							if val, ok := m["value"]; ok {
								examples = append(examples, val)
							}
						}
					}
				}
				if len(examples) > 0 {
					sch, err := c.Compile(id + "#" + ptr + "/schema")
					if err != nil {
						t.Errorf("%s: schema does not compile: %v", ptr, err)
					} else {
						for _, ex := range examples {
							n++
							if err := sch.Validate(ex); err != nil {
								t.Errorf("%s: example does not validate: %v", ptr, err)
							}
						}
					}
				}
			}
			for k, e := range v {
				if k == "example" || k == "examples" {
					continue // values, not parts of the description
				}
				walk(e, ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case []any:
			for i, e := range v {
				walk(e, fmt.Sprintf("%s/%d", ptr, i))
			}
		}
	}
	walk(doc, "")
	if n < 20 {
		t.Errorf("only %d examples validated; every response body should have one", n)
	}
	t.Logf("%d examples validated", n)

	// Every JSON response body and request body carries an example.
	d := loadOpenAPI(t)
	for p, item := range d.Paths {
		for m, raw := range item {
			if !slices.Contains(httpMethods, m) {
				continue
			}
			var o struct {
				RequestBody *struct {
					Content map[string]map[string]any `json:"content"`
				} `json:"requestBody"`
				Responses map[string]struct {
					Content map[string]map[string]any `json:"content"`
				} `json:"responses"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				t.Fatal(err)
			}
			check := func(what string, content map[string]map[string]any) {
				for ct, mt := range content {
					if ct != "application/json" {
						continue
					}
					if _, ok := mt["example"]; !ok {
						t.Errorf("%s %s %s (%s) has no example", strings.ToUpper(m), p, what, ct)
					}
				}
			}
			if o.RequestBody != nil {
				check("request body", o.RequestBody.Content)
			}
			for st, r := range o.Responses {
				check("response "+st, r.Content)
			}
		}
	}
}

// TestOpenAPIServed checks both addresses answer the embedded bytes with an
// ETag, and 304 on If-None-Match.
func TestOpenAPIServed(t *testing.T) {
	s := &Server{}
	for _, p := range []string{"/openapi.json", "/.well-known/openapi.json"} {
		w := httptest.NewRecorder()
		if err := s.openapi(w, httptest.NewRequest("GET", p, nil)); err != nil {
			t.Fatal(err)
		}
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), openapiJSON) {
			t.Fatalf("%s: status %d, body differs: %v", p, w.Code, !bytes.Equal(w.Body.Bytes(), openapiJSON))
		}
		etag := w.Header().Get("ETag")
		if etag == "" || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
			t.Fatalf("%s: ETag %q, Content-Type %q", p, etag, w.Header().Get("Content-Type"))
		}
		r := httptest.NewRequest("GET", p, nil)
		r.Header.Set("If-None-Match", etag)
		w = httptest.NewRecorder()
		_ = s.openapi(w, r)
		if w.Code != http.StatusNotModified {
			t.Errorf("%s with matching If-None-Match: status %d, want 304", p, w.Code)
		}
	}
}
