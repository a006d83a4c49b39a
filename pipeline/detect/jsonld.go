package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Bounds on JSON-LD work per page.
const (
	maxJSONLDBlocks     = 64       // script blocks parsed per page
	maxJSONLDBlockBytes = 1 << 20  // bytes per block
	maxJSONDepth        = 64       // nesting depth accepted by the lenient cleaner
	maxWalkDepth        = 24       // depth searched for Product nodes
	maxWalkNodes        = 200_000  // JSON nodes visited per page
	maxProducts         = 100      // products kept per page or catalog answer
	maxImages           = 20       // images kept per product
	maxOffers           = 100      // offers kept per product
	maxDescription      = 2000     // description bytes kept
	maxFieldBytes       = 512      // other string fields
	maxCatalogBytes     = 16 << 20 // catalog JSON bodies read
	maxValuesPerBlock   = 16       // concatenated JSON values read from one block
)

// JSONLD is what the JSON-LD blocks of a page hold.
type JSONLD struct {
	// Blocks counts the <script type="application/ld+json"> elements read
	// that hold anything: an empty block is no block.
	Blocks int `json:"blocks"`
	// Invalid counts blocks that did not parse even leniently; a store can
	// fix those.
	Invalid int `json:"invalid"`
	// Products are the product nodes found (Product and its schema.org
	// subtypes, see productTypes), in document order.
	Products []Product `json:"products,omitempty"`
	// Types lists the distinct top-level @type values seen, for evidence
	// when no product is found (e.g. only Organization and WebSite).
	Types []string `json:"types,omitempty"`
}

// ExtractJSONLD reads every JSON-LD block of the page and returns the
// products in them. Blocks are read leniently, as browsers and search
// engines do: HTML comment and CDATA wrappers, HTML comments beside the
// JSON, JavaScript comments, raw control characters inside strings,
// trailing commas and JSON encoded twice as a string are tolerated, and one
// bad block does not hide the others. A block with nothing in it (white
// space, comments, null or false as templates print them) is no block.
func ExtractJSONLD(p *Page) JSONLD {
	var out JSONLD
	budget := maxWalkNodes
	seenType := map[string]bool{}
	parsed := 0
	for _, s := range p.doc.scripts {
		if !isJSONLDType(s.typ) {
			continue
		}
		if parsed++; parsed > maxJSONLDBlocks {
			break
		}
		vals, st := decodeLenient(s.text)
		if st == ldEmpty {
			continue
		}
		out.Blocks++
		if st == ldInvalid {
			out.Invalid++
		}
		for _, v := range vals {
			for _, t := range topTypes(v) {
				if !seenType[t] && len(out.Types) < 32 {
					seenType[t] = true
					out.Types = append(out.Types, t)
				}
			}
			w := walker{budget: &budget}
			w.walk(v, 0)
			for _, pr := range w.products {
				if len(out.Products) < maxProducts {
					out.Products = append(out.Products, pr)
				}
			}
		}
	}
	return out
}

// isJSONLDType accepts "application/ld+json" with any parameters and case.
func isJSONLDType(t string) bool {
	mt, _, _ := strings.Cut(t, ";")
	return strings.TrimSpace(strings.ToLower(mt)) == "application/ld+json"
}

// ldStatus is what one JSON-LD block turned out to hold.
type ldStatus int

const (
	ldEmpty   ldStatus = iota // nothing: white space, comments, null, false
	ldOK                      // one or more objects or arrays
	ldInvalid                 // JSON that does not parse even leniently
)

// decodeLenient decodes the JSON values in a block. An HTML comment in a
// block is either a wrapper around the JSON ("<!-- {...} -->", read as the
// JSON inside) or a note beside it ("<!-- made by X --> {...}", dropped);
// the block is read the first way and, if that fails, the second. Values
// decoded before a break are returned with ldInvalid.
func decodeLenient(b []byte) ([]any, ldStatus) {
	if len(b) > maxJSONLDBlockBytes {
		return nil, ldInvalid
	}
	vals, st := decodeClean(b, false)
	if st == ldInvalid && bytes.Contains(b, []byte("<!--")) {
		if v2, st2 := decodeClean(b, true); st2 != ldInvalid {
			return v2, st2
		}
	}
	return vals, st
}

// decodeClean cleans b (dropping HTML comments whole when dropComments)
// and decodes up to maxValuesPerBlock values from it.
func decodeClean(b []byte, dropComments bool) ([]any, ldStatus) {
	clean, st := cleanJSON(b, dropComments)
	if st != ldOK {
		return nil, st
	}
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.UseNumber()
	var vals []any
	for len(vals) < maxValuesPerBlock {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return vals, ldInvalid
		}
		if s, ok := v.(string); ok {
			// JSON-LD encoded twice: a JSON string holding the document.
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
				if inner, st := decodeClean([]byte(t), dropComments); st == ldOK {
					vals = append(vals, inner...)
					continue
				}
			}
		}
		switch v.(type) {
		case map[string]any, []any:
			vals = append(vals, v)
		}
		// Scalars (null, false, numbers, strings) carry no data: a
		// template that printed nothing.
	}
	if len(vals) == 0 {
		return nil, ldEmpty
	}
	return vals, ldOK
}

// cleanJSON removes what real JSON-LD blocks carry that JSON does not allow.
// It also enforces maxJSONDepth, so the decoder never sees deeply nested
// input. The status is ldEmpty when nothing is left and ldInvalid when the
// block is nested too deep.
func cleanJSON(b []byte, dropComments bool) ([]byte, ldStatus) {
	out := make([]byte, 0, len(b))
	depth := 0
	inStr := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case c == '\\' && i+1 < len(b):
				out = append(out, c, b[i+1])
				i++
			case c == '"':
				inStr = false
				out = append(out, c)
			case c < 0x20:
				out = append(out, ' ') // raw newline or tab inside a string
			default:
				out = append(out, c)
			}
			continue
		}
		rest := b[i:]
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case bytes.HasPrefix(rest, []byte("<!--")):
			i += 3
			if dropComments {
				if j := bytes.Index(rest[4:], []byte("-->")); j >= 0 {
					i += j + 3
				} else {
					i = len(b)
				}
			}
		case bytes.HasPrefix(rest, []byte("-->")):
			i += 2
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			i += 8
		case bytes.HasPrefix(rest, []byte("]]>")):
			i += 2
		case bytes.HasPrefix(rest, []byte("//")):
			j := bytes.IndexAny(rest, "\r\n")
			if j < 0 {
				i = len(b)
			} else {
				i += j
			}
		case bytes.HasPrefix(rest, []byte("/*")):
			j := bytes.Index(rest[2:], []byte("*/"))
			if j < 0 {
				i = len(b)
			} else {
				i += j + 3
			}
		case c == '{' || c == '[':
			depth++
			if depth > maxJSONDepth {
				return nil, ldInvalid
			}
			out = append(out, c)
		case c == '}' || c == ']':
			depth--
			// Drop a trailing comma before the close.
			k := len(out) - 1
			for k >= 0 && isJSONSpace(out[k]) {
				k--
			}
			if k >= 0 && out[k] == ',' {
				out = append(out[:k], out[k+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, ldEmpty
	}
	return out, ldOK
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// productTypes are the @type values read as products: Product and every
// type below it in schema.org 30.0 (schemaorg-current-https-types.csv).
// A node typed ["Product", "Vehicle"] is a product as much as one typed
// "Product".
var productTypes = setOf("product", "busorcoach", "car", "dietarysupplement", "drug", "individualproduct",
	"motorcycle", "motorizedbicycle", "productcollection", "productgroup", "productmodel", "someproducts", "vehicle")

// typesOf returns the short @type names of a node.
func typesOf(m map[string]any) []string {
	var out []string
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, schemaShort(s, nil))
		}
	}
	switch t := m["@type"].(type) {
	case string:
		add(t)
	case []any:
		for i, x := range t {
			if i >= 8 {
				break
			}
			add(x)
		}
	}
	return out
}

// productType returns the product type of a node, or "".
func productType(m map[string]any) string {
	for _, t := range typesOf(m) {
		if productTypes[strings.ToLower(t)] {
			return t
		}
	}
	return ""
}

// topTypes lists the @type names of a decoded value's top-level nodes (the
// value itself, an array's items, an @graph's items).
func topTypes(v any) []string {
	var out []string
	var visit func(v any, graph bool)
	visit = func(v any, graph bool) {
		switch x := v.(type) {
		case map[string]any:
			out = append(out, typesOf(x)...)
			if g, ok := x["@graph"]; ok && graph {
				visit(g, false)
			}
		case []any:
			for i, y := range x {
				if i >= 64 {
					break
				}
				if m, ok := y.(map[string]any); ok {
					out = append(out, typesOf(m)...)
					if g, ok := m["@graph"]; ok && graph {
						visit(g, false)
					}
				}
			}
		}
	}
	visit(v, true)
	return out
}

// walker finds product nodes anywhere in a decoded value: top level,
// arrays, @graph, and nested entities such as WebPage.mainEntity or
// ItemList.itemListElement. It does not descend into a product it has
// taken, except for ProductGroup variants, which it folds in.
type walker struct {
	budget   *int
	products []Product
}

func (w *walker) walk(v any, depth int) {
	if depth > maxWalkDepth || *w.budget <= 0 || len(w.products) >= maxProducts {
		return
	}
	*w.budget--
	switch x := v.(type) {
	case map[string]any:
		if t := productType(x); t != "" {
			w.products = append(w.products, w.product(x, t, depth))
			return
		}
		for _, k := range sortedKeys(x) {
			w.walk(x[k], depth+1)
		}
	case []any:
		for _, y := range x {
			w.walk(y, depth+1)
		}
	}
}

// product reads one product node.
func (w *walker) product(m map[string]any, typ string, depth int) Product {
	p := Product{
		Source:      SourceJSONLD,
		Type:        typ,
		Name:        str(m["name"], maxFieldBytes),
		Description: str(m["description"], maxDescription),
		URL:         str(m["url"], maxFieldBytes),
		Images:      images(m["image"]),
		SKU:         str(m["sku"], maxFieldBytes),
		GTIN:        gtin(m),
		MPN:         str(m["mpn"], maxFieldBytes),
		Brand:       brand(m["brand"]),
		Offers:      offers(m["offers"], 0),
	}
	// A ProductGroup often leaves identifiers and prices to its variants;
	// fold them in so the group is judged by what the page gives an agent.
	if vs, ok := m["hasVariant"]; ok && depth < maxWalkDepth {
		for _, v := range asList(vs) {
			vm, ok := v.(map[string]any)
			if !ok || *w.budget <= 0 {
				continue
			}
			*w.budget--
			p.Variants++
			vp := w.product(vm, "Product", depth+1)
			if p.SKU == "" {
				p.SKU = vp.SKU
			}
			if p.GTIN == "" {
				p.GTIN = vp.GTIN
			}
			if p.MPN == "" {
				p.MPN = vp.MPN
			}
			if p.Brand == "" {
				p.Brand = vp.Brand
			}
			if p.Name == "" {
				p.Name = vp.Name
			}
			if len(p.Images) == 0 {
				p.Images = vp.Images
			}
			for _, o := range vp.Offers {
				if len(p.Offers) < maxOffers {
					p.Offers = append(p.Offers, o)
				}
			}
		}
	}
	return p
}

// offers reads an Offer, an array of offers or an AggregateOffer.
func offers(v any, depth int) []Offer {
	var out []Offer
	for _, x := range asList(v) {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		agg := false
		for _, t := range typesOf(m) {
			agg = agg || strings.EqualFold(t, "AggregateOffer")
		}
		cur := strings.ToUpper(str(m["priceCurrency"], 16))
		o := Offer{
			Price:           parsePriceIn(m["price"], cur),
			Currency:        cur,
			Availability:    schemaShortAny(m["availability"], availabilityNames),
			PriceValidUntil: str(m["priceValidUntil"], 64),
			ItemCondition:   schemaShortAny(m["itemCondition"], conditionNames),
			Aggregate:       agg,
		}
		if o.Price == "" || o.Currency == "" {
			// UnitPriceSpecification / PriceSpecification carry price and
			// currency on some platforms.
			for _, ps := range asList(m["priceSpecification"]) {
				pm, ok := ps.(map[string]any)
				if !ok {
					continue
				}
				if o.Currency == "" {
					o.Currency = strings.ToUpper(str(pm["priceCurrency"], 16))
				}
				if o.Price == "" {
					o.Price = parsePriceIn(pm["price"], o.Currency)
				}
				if o.Price != "" && o.Currency != "" {
					break
				}
			}
		}
		if agg {
			if o.Price == "" {
				o.Price = parsePriceIn(m["lowPrice"], o.Currency)
			}
			o.HighPrice = parsePriceIn(m["highPrice"], o.Currency)
		}
		if len(out) < maxOffers {
			out = append(out, o)
		}
		// An AggregateOffer may list its offers; read them one level down.
		if inner, ok := m["offers"]; ok && depth < 2 {
			for _, o := range offers(inner, depth+1) {
				if len(out) < maxOffers {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// asList returns v as a list: the array itself, or a one-item list.
func asList(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		if len(x) > maxOffers {
			x = x[:maxOffers]
		}
		return x
	default:
		return []any{x}
	}
}

// str reads a text value: a string, a number, {"@value": …}, or the first
// of an array. It trims space and caps the length.
func str(v any, n int) string {
	switch x := v.(type) {
	case string:
		return truncateUTF8(strings.TrimSpace(strings.ToValidUTF8(x, "")), n)
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return ""
	case map[string]any:
		if val, ok := x["@value"]; ok {
			if _, nested := val.(map[string]any); !nested {
				return str(val, n)
			}
		}
	case []any:
		for i, y := range x {
			if i >= 8 {
				break
			}
			if _, nested := y.([]any); nested {
				continue
			}
			if s := str(y, n); s != "" {
				return s
			}
		}
	}
	return ""
}

// schemaShortAny reads a value that may be a URL string or {"@id": URL}.
func schemaShortAny(v any, known map[string]string) string {
	if m, ok := v.(map[string]any); ok {
		v = m["@id"]
	}
	s := str(v, maxFieldBytes)
	if s == "" {
		return ""
	}
	return schemaShort(s, known)
}

// images reads a string, an ImageObject, or an array of either.
func images(v any) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range asList(v) {
		var s string
		switch y := x.(type) {
		case string:
			s = str(y, maxAttrBytes)
		case map[string]any:
			for _, k := range []string{"url", "contentUrl", "@id"} {
				if s = str(y[k], maxAttrBytes); s != "" {
					break
				}
			}
		}
		if s != "" && !seen[s] && len(out) < maxImages {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// brand reads a string, a Brand or Organization object, or the first of an
// array.
func brand(v any) string {
	for _, x := range asList(v) {
		switch y := x.(type) {
		case string:
			if s := str(y, maxFieldBytes); s != "" {
				return s
			}
		case map[string]any:
			if s := str(y["name"], maxFieldBytes); s != "" {
				return s
			}
		}
	}
	return ""
}

// gtin returns the first GTIN field present, the generic "gtin" first.
func gtin(m map[string]any) string {
	for _, k := range []string{"gtin", "gtin14", "gtin13", "gtin12", "gtin8"} {
		if s := str(m[k], 64); s != "" {
			return s
		}
	}
	return ""
}

// sortedKeys gives map keys in order, so products nested in objects come
// out in the same order on every run.
func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
