package ciclient

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/serve"
)

// The answer types the server writes, taken from the functions that answer
// the two endpoints, so a change of either's result type is followed here.
var (
	serverCheckAnswer = reflect.TypeOf((*serve.Server).CanAgentCheckout).Out(0) // GET /api/agent-checkout
	serverUCPReport   = reflect.TypeOf((*serve.Server).ValidateUCP).Out(0)      // GET /api/ucp/validate
	serverError       = reflect.TypeFor[serve.ErrorBody]()                      // every error
)

// loadSchemas reads the components of serve/openapi.json.
func loadSchemas(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../../serve/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Components.Schemas
}

// TestAnswersMatchOpenAPI holds every field the client reads to the
// server: it must exist with the same JSON type in the Go type the server
// answers with, and in serve/openapi.json wherever the description lists
// an object's properties. A field renamed or retyped in the server, or in
// its description, fails here instead of turning every check unmeasured.
func TestAnswersMatchOpenAPI(t *testing.T) {
	schemas := loadSchemas(t)
	for _, tc := range []struct {
		client reflect.Type
		server reflect.Type
		schema string
	}{
		{reflect.TypeFor[CheckAnswer](), serverCheckAnswer, "CheckAnswer"},
		{reflect.TypeFor[UCPReport](), serverUCPReport, "UCPReport"},
		{reflect.TypeFor[APIError](), serverError, "Error"},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			a := agreement{schemas: schemas}
			a.compare(tc.schema, tc.client, tc.server, schemas[tc.schema])
			for _, p := range a.problems {
				t.Error(p)
			}
			if a.fields < 3 {
				t.Errorf("only %d fields compared", a.fields)
			}
		})
	}
}

// TestAgreementCatchesRenames shows that the agreement fails on a field
// the server does not write, one it writes with another type, and one the
// description does not list.
func TestAgreementCatchesRenames(t *testing.T) {
	schemas := loadSchemas(t)
	type renamed struct {
		Cached   *bool   `json:"cached"`
		WebMCP   *bool   `json:"webMCP"` // the server writes webmcp
		Platform *bool   `json:"platform"`
		Host     *string `json:"host"`
	}
	type server struct {
		Cached   bool    `json:"cached"`
		WebMCP   *bool   `json:"webMCP"`
		Platform *string `json:"platform"`
		Host     string  `json:"hostName"`
	}
	a := agreement{schemas: schemas}
	a.compare("CheckAnswer", reflect.TypeFor[renamed](), reflect.TypeFor[server](), schemas["CheckAnswer"])
	want := []string{
		`CheckAnswer.webMCP: openapi.json describes no such property`,
		`CheckAnswer.platform: openapi.json says [string null], the client reads boolean`,
		`CheckAnswer.platform: the server writes string, the client reads boolean`,
		`CheckAnswer.host: the server writes no such field`,
	}
	if d := cmp.Diff(want, a.problems); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}

// agreement compares a client type with the server's type and schema.
type agreement struct {
	schemas  map[string]any
	problems []string
	fields   int
}

func (a *agreement) fail(path, format string, args ...any) {
	a.problems = append(a.problems, path+": "+fmt.Sprintf(format, args...))
}

// compare checks client against server and schema (nil when the
// description says nothing about this value) at path.
func (a *agreement) compare(path string, client, server reflect.Type, schema any) {
	a.fields++
	client, server = deref(client), deref(server)
	schemaMap := a.resolve(schema)
	kind := jsonKind(client)
	if kind == "any" {
		return
	}
	if types, ok := schemaTypes(schemaMap); ok && !slices.Contains(types, kind) {
		a.fail(path, "openapi.json says %v, the client reads %s", types, kind)
	}
	if sk := jsonKind(server); sk != kind && sk != "any" {
		a.fail(path, "the server writes %s, the client reads %s", sk, kind)
		return
	}
	switch kind {
	case "object":
		if client.Kind() == reflect.Map {
			if server.Kind() != reflect.Map {
				a.fail(path, "the server writes a struct, the client reads a map")
				return
			}
			a.compare(path+".*", client.Elem(), server.Elem(), schemaMap["additionalProperties"])
			return
		}
		props, described := schemaMap["properties"].(map[string]any)
		for i := range client.NumField() {
			f := client.Field(i)
			name := jsonName(f)
			p := path + "." + name
			st, ok := serverField(server, name)
			if !ok {
				a.fail(p, "the server writes no such field")
				continue
			}
			var sub any
			if described {
				if sub, ok = props[name]; !ok {
					a.fail(p, "openapi.json describes no such property")
					continue
				}
			}
			a.compare(p, f.Type, st, sub)
		}
	case "array":
		a.compare(path+"[]", client.Elem(), server.Elem(), schemaMap["items"])
	}
}

// resolve follows a $ref to the component it names.
func (a *agreement) resolve(schema any) map[string]any {
	m, _ := schema.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		m, _ = a.schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	}
	return m
}

// schemaTypes lists the JSON types a schema allows; ok is false when it
// does not say.
func schemaTypes(m map[string]any) (types []string, ok bool) {
	switch v := m["type"].(type) {
	case string:
		return []string{v}, true
	case []any:
		for _, x := range v {
			s, _ := x.(string)
			types = append(types, s)
		}
		return types, true
	}
	return nil, false
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonKind is the JSON type encoding/json writes for a Go type.
func jsonKind(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "string"
	case t == reflect.TypeFor[json.RawMessage](), t.Kind() == reflect.Interface:
		return "any"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		return "array"
	}
	return t.String()
}

// serverField finds the field encoding/json writes under name, looking
// into embedded structs as it does.
func serverField(t reflect.Type, name string) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" {
			if ft, ok := serverField(deref(f.Type), name); ok {
				return ft, true
			}
			continue
		}
		if f.IsExported() && jsonName(f) == name {
			return f.Type, true
		}
	}
	return nil, false
}
