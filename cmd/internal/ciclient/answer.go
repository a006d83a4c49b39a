package ciclient

import (
	"reflect"
	"strings"

	"svc/pipeline/check"
)

// The typed answers: the fields of the API's answers the rules read, named
// as the server names them (serve/openapi.json's CheckAnswer, UCPReport and
// Error; TestAnswersMatchOpenAPI holds them to it). A field the answer lacks,
// or holds with another JSON type, is the zero value: nil for a pointer,
// which the rules read as unmeasured, never as false.

// CheckAnswer is the part of GET /api/agent-checkout's answer (spec 2.1)
// the checks other than ucp read.
type CheckAnswer struct {
	CheckedAt       *string       `json:"checkedAt"`
	Cached          *bool         `json:"cached"`
	ResultURL       *string       `json:"resultUrl"`
	WebMCP          *bool         `json:"webmcp"`
	WebMCPDetail    WebMCPDetail  `json:"webmcpDetail"`
	CatalogAnswered *bool         `json:"catalogAnswered"`
	ProductFound    *bool         `json:"productFound"`
	Catalog         Catalog       `json:"catalog"`
	CartLink        *bool         `json:"cartLink"`
	StorefrontMCP   StorefrontMCP `json:"storefrontMcp"`
	Robots          Robots        `json:"robots"`
	ProductData     *ProductData  `json:"productData"`
	Policies        Policies      `json:"policies"`
	BlockStatus     BlockStatus   `json:"blockStatus"`
	Reachability    Reachability  `json:"reachability"`
}

// WebMCPDetail lists the WebMCP tools seen in the server HTML; an entry that
// is not a string is nil.
type WebMCPDetail struct {
	Tools []*string `json:"tools"`
}

// Catalog says which catalog route answered.
type Catalog struct {
	Source    *string `json:"source"`
	Throttled *bool   `json:"throttled"`
}

// StorefrontMCP is the storefront MCP endpoint; Tools counts every entry.
type StorefrontMCP struct {
	Detected *bool     `json:"detected"`
	Tools    []*string `json:"tools"`
}

// Robots is the per-agent reading of robots.txt.
type Robots struct {
	Status *string          `json:"status"`
	Agents map[string]Agent `json:"agents"`
}

// Agent is one AI agent's reading of robots.txt.
type Agent struct {
	Verdict *string `json:"verdict"`
	Purpose *string `json:"purpose"`
}

// ProductData is what a product page says about one product.
type ProductData struct {
	Source       *string `json:"source"`
	Name         *string `json:"name"`
	Price        *string `json:"price"`
	Currency     *string `json:"currency"`
	Availability *string `json:"availability"`
	GTIN         *string `json:"gtin"`
	SKU          *string `json:"sku"`
	Image        *string `json:"image"`
	Complete     *bool   `json:"complete"`
}

// Policies says which policy pages were found: the check engine's own
// type, whose fields are all nullable already.
type Policies = check.Policies

// BlockStatus says whether the store's edge refused the check.
type BlockStatus struct {
	Blocked *bool   `json:"blocked"`
	Reason  *string `json:"reason"`
}

// Reachability describes the homepage fetch. HTTPStatus is 0 when absent or
// not an integer.
type Reachability struct {
	Reachable             *bool   `json:"reachable"`
	Error                 *string `json:"error"`
	HTTPStatus            int     `json:"httpStatus"`
	Parked                *bool   `json:"parked"`
	RedirectsToOtherBrand *bool   `json:"redirectsToOtherBrand"`
}

// UCPReport is the part of GET /api/ucp/validate's validation report (spec
// 2.4) the ucp check reads.
type UCPReport struct {
	Valid           *bool     `json:"valid"`
	DeclaredVersion *string   `json:"declaredVersion"`
	Counts          UCPCounts `json:"counts"`
	Errors          []UCPItem `json:"errors"`
	Source          UCPSource `json:"source"`
	Profile         any       `json:"profile"` // the profile as parsed; nil when absent or null
	Schema          UCPSchema `json:"schema"`
}

// UCPCounts counts the findings; 0 when absent or not an integer.
type UCPCounts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// UCPItem is one finding.
type UCPItem struct {
	Rule *string `json:"rule"`
}

// UCPSource says where the profile was fetched from and how that went.
type UCPSource struct {
	Status     *int    `json:"status"`
	ProfileURL *string `json:"profileUrl"`
	FetchError *string `json:"fetchError"`
}

// UCPSchema is the outcome of the JSON Schema check.
type UCPSchema struct {
	Error *string `json:"error"`
}

// APIError is the API's one error body.
type APIError struct {
	Error struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
	} `json:"error"`
}

// decode fills dst, a pointer to one of the answer types, from v, a JSON
// value decoded into any. Keys match exactly (encoding/json would match
// them case-insensitively and merge repeated objects, which the Node
// client does not).
func decode(dst any, v any) {
	fill(reflect.ValueOf(dst).Elem(), v)
}

// fill sets dst from v when v has the JSON type dst's type stands for, and
// says whether it did. A number fills an int only when it is integral.
func fill(dst reflect.Value, v any) bool {
	switch dst.Kind() {
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if !fill(p.Elem(), v) {
			return false
		}
		dst.Set(p)
	case reflect.Interface:
		if v == nil {
			return false
		}
		dst.Set(reflect.ValueOf(v))
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return false
		}
		dst.SetBool(b)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return false
		}
		dst.SetString(s)
	case reflect.Int:
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			return false
		}
		dst.SetInt(int64(f))
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			return false
		}
		s := reflect.MakeSlice(dst.Type(), len(a), len(a))
		for i, x := range a {
			fill(s.Index(i), x)
		}
		dst.Set(s)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(m))
		for k, x := range m {
			e := reflect.New(dst.Type().Elem()).Elem()
			fill(e, x)
			out.SetMapIndex(reflect.ValueOf(k), e)
		}
		dst.Set(out)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		t := dst.Type()
		for i := range t.NumField() {
			fill(dst.Field(i), m[jsonName(t.Field(i))])
		}
	default:
		panic("ciclient: no JSON reading for " + dst.Type().String())
	}
	return true
}

// jsonName is a struct field's key in the answer.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
