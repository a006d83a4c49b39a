package ucp

import "sort"

// Severity is the level of a finding. Only errors make a profile invalid.
type Severity string

// The three severities of ../shared/ucp/RULES.md section 1.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Rule describes one check: its stable id, default severity, the spec text it
// rests on, and whether it is the service's own hint rather than a UCP
// requirement. Some rules change severity with the declared release; items
// carry the severity that applied.
type Rule struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	SpecURL  string   `json:"specUrl"`
	// Hint marks items the spec leaves to us (validator policy, diagnostics)
	// and the service's own hints: they are advice, not UCP requirements.
	Hint bool `json:"hint"`
	// Online rules run only when the profile is fetched by URL.
	Online bool `json:"online"`
}

const (
	specBase = "https://ucp.dev/2026-08-25/specification/"
	overview = specBase + "overview/"
)

// Rule ids. The ucp.* ids are those of ../shared/ucp/RULES.md; svc.hint.* are
// the service's own hints.
const (
	ruleSchema        = "ucp.schema.business"
	ruleJSONObject    = "ucp.doc.json_object"
	ruleDocSize       = "ucp.doc.size"
	ruleLegacyShape   = "ucp.doc.legacy_shape"
	ruleVersionFormat = "ucp.version.format"
	ruleKnownRelease  = "ucp.version.known_release"
	ruleDevUCPMatch   = "ucp.version.dev_ucp_match"
	ruleSVOlder       = "ucp.supported_versions.older"
	ruleSVHTTPS       = "ucp.supported_versions.https"
	ruleSVLeaf        = "ucp.supported_versions.leaf"
	ruleKeyFormat     = "ucp.namespace.key_format"
	ruleNaming        = "ucp.namespace.naming_convention"
	ruleAuthority     = "ucp.namespace.authority"
	ruleSpecAuthority = "ucp.namespace.spec_authority"
	ruleDevUCPKnown   = "ucp.capability.dev_ucp_known"
	ruleSharedSuffix  = "ucp.namespace.shared_suffix"
	ruleSpecHTTPS     = "ucp.url.spec_https"
	rulePublicHost    = "ucp.url.public_host"
	ruleShopping      = "ucp.service.shopping_present"
	ruleEndpointReq   = "ucp.service.endpoint_required"
	ruleEndpointHTTPS = "ucp.service.endpoint_https"
	ruleTrailingSlash = "ucp.service.endpoint_trailing_slash"
	ruleA2ACard       = "ucp.service.a2a_agent_card"
	ruleTransportSch  = "ucp.service.transport_schema"
	ruleDupBinding    = "ucp.service.duplicate_binding"
	ruleEmbeddedCfg   = "ucp.service.embedded_config"
	ruleCapSchemaReq  = "ucp.capability.schema_required"
	ruleCapConfig     = "ucp.capability.config"
	ruleOfficialURL   = "ucp.capability.official_schema_url"
	ruleDupVersion    = "ucp.capability.duplicate_version"
	ruleCapNone       = "ucp.capability.none"
	ruleOrphan        = "ucp.extension.orphan"
	rulePartialParent = "ucp.extension.partial_parent"
	ruleHandlerID     = "ucp.payment_handler.id_unique"
	ruleKeysLocation  = "ucp.keys.location"
	ruleKeysPrivate   = "ucp.keys.no_private"
	ruleKeysShape     = "ucp.keys.shape"
	ruleKeysEncoding  = "ucp.keys.encoding"
	ruleKidUnique     = "ucp.keys.kid_unique"
	ruleES256         = "ucp.keys.es256_baseline"
	ruleWebhookKeys   = "ucp.keys.required_for_webhooks"
	ruleThumbprint    = "ucp.keys.thumbprint_kid"
	ruleUnusable      = "ucp.keys.unusable"
	ruleNoRecursion   = "ucp.member.no_recursion"
	ruleUnknownMember = "ucp.member.unknown"
	ruleMapOrder      = "ucp.map_order.valid"
	ruleSelfProvider  = "ucp.identity.no_self_provider"
	ruleHTTPS         = "ucp.http.https"
	ruleNoRedirect    = "ucp.http.no_redirect"
	ruleStatus        = "ucp.http.status"
	ruleCacheControl  = "ucp.http.cache_control"
	ruleValidatorHdr  = "ucp.http.validator"
	ruleContentType   = "ucp.http.content_type"
	ruleTLS           = "ucp.http.tls"
	ruleArtifacts     = "ucp.http.artifacts"

	hintShoppingService = "svc.hint.shopping_service"
	hintAgentBinding    = "svc.hint.agent_binding"
	hintCartOrCheckout  = "svc.hint.cart_or_checkout"
)

// rules is the catalogue, keyed by id.
var rules = func() map[string]Rule {
	list := []Rule{
		{ID: ruleSchema, Severity: SevError, SpecURL: overview + "#profile-structure"},
		{ID: ruleJSONObject, Severity: SevError, SpecURL: overview + "#error-codes"},
		{ID: ruleDocSize, Severity: SevWarning, SpecURL: overview + "#fetching"},
		{ID: ruleLegacyShape, Severity: SevInfo, SpecURL: "https://ucp.dev/2026-01-11/specification/overview/", Hint: true},
		{ID: ruleVersionFormat, Severity: SevError, SpecURL: overview + "#version-format"},
		{ID: ruleKnownRelease, Severity: SevWarning, SpecURL: overview + "#component-versioning-and-release-snapshots", Hint: true},
		{ID: ruleDevUCPMatch, Severity: SevError, SpecURL: overview + "#component-versioning-and-release-snapshots"},
		{ID: ruleSVOlder, Severity: SevWarning, SpecURL: overview + "#protocol-version"},
		{ID: ruleSVHTTPS, Severity: SevError, SpecURL: overview + "#fetching"},
		{ID: ruleSVLeaf, Severity: SevError, SpecURL: overview + "#initial-service-and-capability-discovery", Online: true},
		{ID: ruleKeyFormat, Severity: SevError, SpecURL: overview + "#naming-convention"},
		{ID: ruleNaming, Severity: SevWarning, SpecURL: overview + "#naming-convention"},
		{ID: ruleAuthority, Severity: SevError, SpecURL: overview + "#authority-binding"},
		{ID: ruleSpecAuthority, Severity: SevError, SpecURL: "https://ucp.dev/2026-04-08/specification/overview/#spec-url-binding"},
		{ID: ruleDevUCPKnown, Severity: SevWarning, SpecURL: overview + "#governance-model"},
		{ID: ruleSharedSuffix, Severity: SevInfo, SpecURL: overview + "#derivation-algorithm"},
		{ID: ruleSpecHTTPS, Severity: SevError, SpecURL: overview + "#enforcement"},
		{ID: rulePublicHost, Severity: SevError, SpecURL: overview + "#fetching"},
		{ID: ruleShopping, Severity: SevWarning, SpecURL: overview + "#services"},
		{ID: ruleEndpointReq, Severity: SevError, SpecURL: overview + "#endpoint-resolution"},
		{ID: ruleEndpointHTTPS, Severity: SevError, SpecURL: overview + "#endpoint-resolution"},
		{ID: ruleTrailingSlash, Severity: SevWarning, SpecURL: overview + "#endpoint-resolution"},
		{ID: ruleA2ACard, Severity: SevInfo, SpecURL: specBase + "shopping/checkout/a2a/#transport-discovery"},
		{ID: ruleTransportSch, Severity: SevWarning, SpecURL: overview + "#service-definition"},
		{ID: ruleDupBinding, Severity: SevWarning, SpecURL: overview + "#services"},
		{ID: ruleEmbeddedCfg, Severity: SevError, SpecURL: specBase + "shopping/checkout/embedded/#service-level-discovery"},
		{ID: ruleCapSchemaReq, Severity: SevError, SpecURL: overview + "#authority-binding"},
		{ID: ruleCapConfig, Severity: SevError, SpecURL: specBase + "common/identity-linking/#discovery"},
		{ID: ruleOfficialURL, Severity: SevWarning, SpecURL: overview + "#component-versioning-and-release-snapshots"},
		{ID: ruleDupVersion, Severity: SevWarning, SpecURL: overview + "#capability-versions"},
		{ID: ruleCapNone, Severity: SevInfo, SpecURL: overview + "#profile-structure"},
		{ID: ruleOrphan, Severity: SevError, SpecURL: overview + "#extensions"},
		{ID: rulePartialParent, Severity: SevInfo, SpecURL: overview + "#multi-parent-extensions"},
		{ID: ruleHandlerID, Severity: SevWarning, SpecURL: overview + "#payment-handlers"},
		{ID: ruleKeysLocation, Severity: SevError, SpecURL: overview + "#profile-structure"},
		{ID: ruleKeysPrivate, Severity: SevError, SpecURL: specBase + "signatures/#key-format-jwk"},
		{ID: ruleKeysShape, Severity: SevError, SpecURL: specBase + "signatures/#key-format-jwk"},
		{ID: ruleKeysEncoding, Severity: SevError, SpecURL: specBase + "signatures/#key-format-jwk"},
		{ID: ruleKidUnique, Severity: SevWarning, SpecURL: overview + "#identity-resolution-algorithm"},
		{ID: ruleES256, Severity: SevWarning, SpecURL: specBase + "signatures/#signature-algorithms"},
		{ID: ruleWebhookKeys, Severity: SevWarning, SpecURL: overview + "#authentication-mechanisms"},
		{ID: ruleThumbprint, Severity: SevInfo, SpecURL: specBase + "signatures/#key-format-jwk"},
		{ID: ruleUnusable, Severity: SevInfo, SpecURL: overview + "#identity-resolution-algorithm"},
		{ID: ruleNoRecursion, Severity: SevError, SpecURL: overview + "#the-ucp-protocol-namespace"},
		{ID: ruleUnknownMember, Severity: SevWarning, SpecURL: overview + "#the-ucp-protocol-namespace"},
		{ID: ruleMapOrder, Severity: SevWarning, SpecURL: overview + "#map_order"},
		{ID: ruleSelfProvider, Severity: SevWarning, SpecURL: specBase + "common/identity-linking/#provider-configuration"},
		{ID: ruleHTTPS, Severity: SevError, SpecURL: overview + "#hosting", Online: true},
		{ID: ruleNoRedirect, Severity: SevError, SpecURL: overview + "#hosting", Online: true},
		{ID: ruleStatus, Severity: SevError, SpecURL: overview + "#error-codes", Online: true},
		{ID: ruleCacheControl, Severity: SevError, SpecURL: overview + "#hosting", Online: true},
		{ID: ruleValidatorHdr, Severity: SevWarning, SpecURL: overview + "#hosting", Online: true},
		{ID: ruleContentType, Severity: SevWarning, SpecURL: overview + "#rest-transport-core", Hint: true, Online: true},
		{ID: ruleTLS, Severity: SevWarning, SpecURL: specBase + "shopping/checkout/rest/#transport-security", Online: true},
		{ID: ruleArtifacts, Severity: SevWarning, SpecURL: overview + "#hosting", Online: true},
		{ID: hintShoppingService, Severity: SevInfo, SpecURL: overview + "#services", Hint: true},
		{ID: hintAgentBinding, Severity: SevInfo, SpecURL: overview + "#services", Hint: true},
		{ID: hintCartOrCheckout, Severity: SevInfo, SpecURL: overview + "#profile-structure", Hint: true},
	}
	m := make(map[string]Rule, len(list))
	for _, r := range list {
		m[r.ID] = r
	}
	return m
}()

// Rules returns every rule the validator applies, sorted by id, for
// documentation and the OpenAPI description.
func Rules() []Rule {
	out := make([]Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
