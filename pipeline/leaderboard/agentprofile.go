package leaderboard

import (
	"encoding/json"
	"strings"

	"svc/pipeline/httpsig"
)

// svc's own UCP platform profile (issue 21: "the UCP-Agent header with
// svc's own profile"). The UCP path names a profile URL in every request
// (overview "Platform Advertisement on Request"), and a business fetches
// and validates it before it answers (overview "Negotiation Protocol",
// Business Requirements 1): a URL that serves no profile is refused with
// profile_unreachable. This file is the profile's one home: `svc serve`
// answers GET /.well-known/ucp with PlatformProfile, and the pipeline's
// UCP path advertises AgentProfileURL(base) when it knows the base URL of
// that server.
//
// The profile is the platform_schema variant of the 2026-08-25 profile
// (profile.json#/$defs/platform_schema): the versions the path speaks, the
// shopping service over the two transports it drives (REST and MCP), and
// the capabilities it uses: catalog search, cart and checkout, and the
// public key svc signs its UCP requests with (agentkey.go), in the
// top-level keys JWK set (profile.json jwk_public_key; overview "Key
// Discovery"), where a business that verifies signatures looks it up by
// the keyid of the signature. It declares no endpoint (svc hosts no UCP
// service and takes no webhooks) and no payment handler (the path never
// pays). A profile built without a key (PlatformProfile) says nothing
// about signing, and a business that demands a signature refuses the
// path's requests: no_cart [ucp_signature_required].

// AgentProfilePath is where `svc serve` publishes the platform profile.
const AgentProfilePath = "/.well-known/ucp"

// The capabilities the UCP path uses (ucppath.go reads the business
// profile for them under these names).
const (
	capCatalogSearch = "dev.ucp.shopping.catalog.search"
	capCart          = "dev.ucp.shopping.cart"
	capCheckout      = "dev.ucp.shopping.checkout"
)

// platformCapabilities are the capabilities of the platform profile, each
// with its spec page and schema under https://ucp.dev/<version>/ (the
// names and paths of the 2026-08-25 business examples,
// ../shared/ucp/examples/full-valid.json).
var platformCapabilities = []struct{ name, spec, schema string }{
	{capCatalogSearch, "specification/shopping/catalog/search", "schemas/shopping/catalog_search.json"},
	{capCart, "specification/shopping/cart", "schemas/shopping/cart.json"},
	{capCheckout, "specification/shopping/checkout", "schemas/shopping/checkout.json"},
}

// platformTransports are the shopping service bindings the path drives,
// with their service description under https://ucp.dev/<version>/.
var platformTransports = []struct{ transport, schema string }{
	{"rest", "services/shopping/rest.openapi.json"},
	{"mcp", "services/shopping/mcp.openrpc.json"},
}

// profileEntry is one registry entry of the platform profile.
type profileEntry struct {
	Version   string `json:"version"`
	Spec      string `json:"spec"`
	Transport string `json:"transport,omitempty"`
	Schema    string `json:"schema"`
}

// platformProfile is the document: ucp.version, the services and
// payment_handlers registries (required even when empty, overview
// "Profile Structure"), the capabilities, and the signing keys (left out
// when there are none: an empty keys array says the same with more bytes).
type platformProfile struct {
	UCP struct {
		Version         string                    `json:"version"`
		Services        map[string][]profileEntry `json:"services"`
		Capabilities    map[string][]profileEntry `json:"capabilities"`
		PaymentHandlers map[string][]profileEntry `json:"payment_handlers"`
	} `json:"ucp"`
	// Keys are public JWKs: httpsig.JWK has no member for private key
	// material (rule ucp.keys.no_private).
	Keys []httpsig.JWK `json:"keys,omitempty"`
}

// platformProfileJSON is PlatformProfile's document, built once.
var platformProfileJSON = buildPlatformProfile()

func buildPlatformProfile(keys ...httpsig.JWK) []byte {
	// The profile states one version: the newest the path speaks. A path
	// that speaks older ones too would list them in supported_versions,
	// each with a profile of its own (overview "Protocol Version").
	v := UCPVersions[0]
	base := "https://ucp.dev/" + v + "/"
	var p platformProfile
	p.UCP.Version = v
	p.UCP.Services = map[string][]profileEntry{}
	for _, t := range platformTransports {
		p.UCP.Services["dev.ucp.shopping"] = append(p.UCP.Services["dev.ucp.shopping"],
			profileEntry{Version: v, Spec: base + "specification/overview/", Transport: t.transport, Schema: base + t.schema})
	}
	p.UCP.Capabilities = map[string][]profileEntry{}
	for _, c := range platformCapabilities {
		p.UCP.Capabilities[c.name] = []profileEntry{{Version: v, Spec: base + c.spec, Schema: base + c.schema}}
	}
	p.UCP.PaymentHandlers = map[string][]profileEntry{}
	p.Keys = keys
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic("leaderboard: platform profile: " + err.Error()) // plain structs: cannot fail
	}
	return append(b, '\n')
}

// PlatformProfile returns svc's UCP platform profile without a signing
// key. The bytes are the same on every call and in every process of one
// build; callers must not modify them.
func PlatformProfile() []byte { return platformProfileJSON }

// PlatformProfileWithKeys is svc's UCP platform profile publishing the
// given public keys, the document `svc serve` answers at AgentProfilePath
// with svc's signing key (httpsig.Key.PublicJWK). The same keys give the same
// bytes.
func PlatformProfileWithKeys(keys ...httpsig.JWK) []byte {
	if len(keys) == 0 {
		return platformProfileJSON
	}
	return buildPlatformProfile(keys...)
}

// AgentProfileURL is the profile URL under the server's absolute base
// ("https://svc.example" gives "https://svc.example/.well-known/ucp"); ""
// when base is empty.
func AgentProfileURL(base string) string {
	base = strings.TrimSuffix(strings.TrimSpace(base), "/")
	if base == "" {
		return ""
	}
	return base + AgentProfilePath
}
