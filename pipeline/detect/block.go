package detect

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
)

// Reasons a response refused the client.
const (
	// ReasonChallenge: a JavaScript or interactive challenge page.
	ReasonChallenge = "challenge"
	// ReasonCaptcha: a captcha page.
	ReasonCaptcha = "captcha"
	// ReasonBlocked: a firewall's block page.
	ReasonBlocked = "blocked"
	// ReasonRateLimited: 429 Too Many Requests.
	ReasonRateLimited = "rate_limited"
	// ReasonPaymentRequired: 402, as pay-per-crawl edges answer AI agents.
	ReasonPaymentRequired = "payment_required"
	// ReasonForbidden: a bare 403 with no vendor or captcha marker.
	ReasonForbidden = "forbidden"
)

// Vendors of bot walls.
const (
	VendorCloudflare = "cloudflare"
	VendorAkamai     = "akamai"
	VendorImperva    = "imperva"
	VendorPerimeterX = "perimeterx"
	VendorSucuri     = "sucuri"
	VendorAWSWAF     = "aws_waf"
	VendorDataDome   = "datadome"
	VendorSiteGround = "siteground"
	VendorVercel     = "vercel"
)

// Block says whether a response refused the client, and why.
//
// What counts as blocked: any challenge, captcha or firewall page we can
// recognise (whatever its status, since Cloudflare and SiteGround serve
// theirs with 403, 503 or even 202), a 429, a 402, and a bare 403. A bare
// 403 is Blocked with ReasonForbidden but Wall false and no Vendor: it stops
// every agent that sends the same request, so the store did refuse us, but
// an origin rule, a geo-fence or a misconfiguration answers the same way,
// so we do not call it a bot wall. A 404, 5xx or 200 without markers is
// not a block: the store answered, badly or not.
type Block struct {
	Blocked bool   `json:"blocked"`
	Reason  string `json:"reason,omitempty"`
	// Vendor is the bot-management product recognised, or "".
	Vendor string `json:"vendor,omitempty"`
	// Wall is true when a vendor or captcha page was recognised, as opposed
	// to a bare status code.
	Wall bool `json:"wall,omitempty"`
	// RetryAfter is the Retry-After header as sent, when present.
	RetryAfter string   `json:"retryAfter,omitempty"`
	Evidence   []string `json:"evidence,omitempty"`
}

// DetectBlock tells a wall or block from an ordinary answer, from status,
// headers, cookies, the final URL and the body. Vendor markers are checked
// first, so a Cloudflare challenge served as 429 reads as a challenge, not
// a rate limit.
//
// Several vendors also set their cookie or header on pages they let
// through (incap_ses, datadome, X-Sucuri-ID, Server: AkamaiGHost), and
// Cloudflare injects /cdn-cgi/challenge-platform/scripts/jsd/ into normal
// pages; those count only together with a 403 or a challenge marker.
func DetectBlock(p *Page) Block {
	b := detectWall(p)
	if ra := p.Header.Get("Retry-After"); ra != "" {
		b.RetryAfter = truncateUTF8(ra, 64)
	}
	if b.Blocked {
		b.Wall = true
		return b
	}
	switch p.Status {
	case http.StatusPaymentRequired:
		b = Block{Blocked: true, Reason: ReasonPaymentRequired, RetryAfter: b.RetryAfter, Evidence: []string{"status 402"}}
		if headerHas(p.Header, "Crawler-Price") || headerContainsFold(p.Header, "Server", "cloudflare") {
			b.Vendor = VendorCloudflare
			b.Evidence = append(b.Evidence, "Cloudflare pay per crawl")
		}
		return b
	case http.StatusTooManyRequests:
		b = Block{Blocked: true, Reason: ReasonRateLimited, RetryAfter: b.RetryAfter, Evidence: []string{"status 429"}}
		if b.RetryAfter != "" {
			b.Evidence = append(b.Evidence, "header Retry-After: "+b.RetryAfter)
		}
		return b
	case http.StatusForbidden:
		b = Block{Blocked: true, Reason: ReasonForbidden, RetryAfter: b.RetryAfter, Evidence: []string{"status 403 without wall markers"}}
		if s := p.Header.Get("Server"); s != "" {
			b.Evidence = append(b.Evidence, "header Server: "+truncateUTF8(s, 40))
		}
		return b
	}
	return b
}

// detectWall checks vendor and captcha markers.
func detectWall(p *Page) Block {
	st, h, body := p.Status, p.Header, p.Body
	title := strings.ToLower(p.Title)
	heading := strings.ToLower(p.doc.h1)
	refused := st >= 400
	cookies := cookieNames(h)
	hasCookie := func(prefixes ...string) bool {
		for _, c := range cookies {
			for _, pre := range prefixes {
				if strings.HasPrefix(strings.ToLower(c), pre) {
					return true
				}
			}
		}
		return false
	}
	bodyHas := func(markers ...string) string {
		for _, m := range markers {
			if contains(body, m) {
				return m
			}
		}
		return ""
	}
	says := func(phrases ...string) string {
		for _, ph := range phrases {
			if strings.Contains(title, ph) || strings.Contains(heading, ph) {
				return ph
			}
		}
		return ""
	}
	wall := func(vendor, reason string, ev ...string) Block {
		return Block{Blocked: true, Reason: reason, Vendor: vendor, Evidence: ev}
	}

	// Cloudflare. A challenge that shows a Turnstile widget, or an
	// interactive one, asks the visitor to solve it: a captcha.
	cfReason := ReasonChallenge
	if bodyHas("cf-turnstile", "challenges.cloudflare.com/turnstile", "/turnstile/", "cType: 'interactive'", `cType:"interactive"`,
		"cf-hcaptcha-container", "cf_captcha_kind") != "" {
		cfReason = ReasonCaptcha
	}
	if headerContainsFold(h, "Cf-Mitigated", "challenge") {
		return wall(VendorCloudflare, cfReason, "header cf-mitigated: challenge")
	}
	if st == http.StatusForbidden && cfReason != ReasonCaptcha && (strings.Contains(title, "attention required! | cloudflare") ||
		contains(body, "cf-error-details") || contains(body, "Sorry, you have been blocked")) {
		return wall(VendorCloudflare, ReasonBlocked, "Cloudflare block page")
	}
	if m := bodyHas("_cf_chl_opt", "__cf_chl_", "cf-browser-verification", "jschl-answer", "/cdn-cgi/l/chk_jschl", "cf_chl_prog"); m != "" {
		return wall(VendorCloudflare, cfReason, "body contains "+m)
	}
	if ph := says("just a moment", "attention required! | cloudflare", "please wait... | cloudflare", "checking your browser before accessing",
		"checking if the site connection is secure"); ph != "" && (strings.HasPrefix(title, ph) || refused || cloudflareEdge(h) || contains(body, "/cdn-cgi/")) {
		return wall(VendorCloudflare, cfReason, fmt.Sprintf("page says %q", ph))
	}
	if cfChallengePath(body) {
		return wall(VendorCloudflare, cfReason, "body loads /cdn-cgi/challenge-platform/ (not the jsd script)")
	}

	// Vercel's attack challenge mode.
	if headerContainsFold(h, "X-Vercel-Mitigated", "challenge") {
		return wall(VendorVercel, ReasonChallenge, "header x-vercel-mitigated: challenge")
	}

	// SiteGround answers 202 and sends the browser to its captcha.
	if p.URL != nil && strings.HasPrefix(p.URL.Path, "/.well-known/sgcaptcha") {
		return wall(VendorSiteGround, ReasonCaptcha, "redirected to /.well-known/sgcaptcha/")
	}
	if strings.Contains(h.Get("Location"), "/.well-known/sgcaptcha") || contains(body, "/.well-known/sgcaptcha") {
		return wall(VendorSiteGround, ReasonCaptcha, fmt.Sprintf("status %d pointing to /.well-known/sgcaptcha/", st))
	}

	// DataDome. x-dd-b is 1 for a soft challenge, 2 for a captcha.
	if contains(body, "captcha-delivery.com") {
		return wall(VendorDataDome, ReasonCaptcha, "captcha from captcha-delivery.com")
	}
	switch strings.TrimSpace(h.Get("X-DD-B")) {
	case "1":
		return wall(VendorDataDome, ReasonChallenge, "header x-dd-b: 1")
	case "2":
		return wall(VendorDataDome, ReasonCaptcha, "header x-dd-b: 2")
	}
	if refused && (hasCookie("datadome") || headerHas(h, "X-DataDome") || headerHas(h, "X-DataDome-CID") ||
		headerHas(h, "X-DD-B") || headerContainsFold(h, "Server", "datadome") || bodyHas("ct.datadome.co", "ddjskey") != "") {
		return wall(VendorDataDome, ReasonBlocked, fmt.Sprintf("status %d with DataDome cookie, header or script", st))
	}

	// PerimeterX / HUMAN.
	if contains(body, "perimeterx.com/whywasiblocked") || contains(body, "px-captcha") || contains(body, "_pxCaptcha") {
		return wall(VendorPerimeterX, ReasonCaptcha, "PerimeterX block page")
	}
	if refused && (bodyHas("_pxAppId", "pxInit(", "_pxAction", "_pxUuid", "client.a.pxi.pub", "px-cdn.net", "px-cloud.net") != "" ||
		hasCookie("_px") || headerHas(h, "X-PX-Authorization")) {
		if containsFold(body, "press &amp; hold") || containsFold(body, "press & hold") {
			return wall(VendorPerimeterX, ReasonCaptcha, fmt.Sprintf("status %d HUMAN Press & Hold page", st))
		}
		return wall(VendorPerimeterX, ReasonBlocked, fmt.Sprintf("status %d with PerimeterX markers", st))
	}

	// Imperva / Incapsula (and Distil, now Imperva bot protection).
	if contains(body, "Incapsula incident ID") {
		return wall(VendorImperva, ReasonBlocked, "body contains Incapsula incident ID")
	}
	if strings.Contains(title, "pardon our interruption") {
		return wall(VendorImperva, ReasonChallenge, fmt.Sprintf("title %q", p.Title))
	}
	if contains(body, "_Incapsula_Resource") && (refused || len(body) < 8<<10) {
		return wall(VendorImperva, ReasonChallenge, "small page loading _Incapsula_Resource")
	}
	if refused && (hasCookie("incap_ses", "visid_incap", "reese84") || headerHas(h, "X-Iinfo") || impervaCDN(h) ||
		bodyHas("incapsula.", "imperva.") != "") {
		return wall(VendorImperva, ReasonBlocked, fmt.Sprintf("status %d with Imperva cookies, headers or script", st))
	}

	// Sucuri.
	if headerHas(h, "X-Sucuri-Block") {
		return wall(VendorSucuri, ReasonBlocked, "header X-Sucuri-Block")
	}
	if containsFold(body, "sucuri website firewall") && (refused || containsFold(body, "access denied")) {
		return wall(VendorSucuri, ReasonBlocked, "Sucuri WebSite Firewall page")
	}
	if st == http.StatusForbidden && headerHas(h, "X-Sucuri-ID") {
		return wall(VendorSucuri, ReasonBlocked, "status 403 with X-Sucuri-ID")
	}

	// AWS WAF.
	if headerHas(h, "X-Blocked-By-WAF") {
		return wall(VendorAWSWAF, ReasonBlocked, "header X-Blocked-By-WAF")
	}
	switch a := strings.ToLower(strings.TrimSpace(h.Get("X-Amzn-Waf-Action"))); a {
	case "captcha":
		return wall(VendorAWSWAF, ReasonCaptcha, "header x-amzn-waf-action: captcha")
	case "challenge":
		return wall(VendorAWSWAF, ReasonChallenge, "header x-amzn-waf-action: challenge")
	case "block":
		return wall(VendorAWSWAF, ReasonBlocked, "header x-amzn-waf-action: block")
	}
	if refused && (bodyHas("AwsWafIntegration", "awswaf", "aws-waf") != "" || hasCookie("aws-waf-token")) {
		return wall(VendorAWSWAF, ReasonChallenge, "AWS WAF challenge script")
	}

	// Akamai.
	if contains(body, "/_sec/cp_challenge/") {
		return wall(VendorAkamai, ReasonChallenge, "Akamai sensor challenge /_sec/cp_challenge/")
	}
	if contains(body, "Access Denied") && contains(body, "Reference #") {
		return wall(VendorAkamai, ReasonBlocked, "Access Denied page with Reference #")
	}
	if refused && (headerContainsFold(h, "Server", "akamaighost") || headerContainsFold(h, "Akamai-Cache-Status", "error") ||
		hasCookie("_abck", "ak_bmsc", "bm_sz", "bm_sv") || bodyHas("bmak.", "/akam/") != "") {
		return wall(VendorAkamai, ReasonBlocked, fmt.Sprintf("status %d with Akamai Bot Manager markers", st))
	}

	// Generic captcha and block pages. The vendor is named when the edge
	// that served the page says who it is.
	vendor := edgeVendor(h)
	if ph := says(captchaPhrases...); ph != "" {
		return wall(vendor, ReasonCaptcha, fmt.Sprintf("page says %q", ph))
	}
	if m := bodyHas(captchaWidgets...); m != "" && refused {
		return wall(vendor, ReasonCaptcha, fmt.Sprintf("status %d page with %s", st, m))
	}
	// A page that is nothing but a captcha it runs at once: small, no shop
	// in it, no way on. Working stores put widgets on contact forms, with
	// the whole site around them, and run them on submit.
	if m := bodyHas(captchaActive...); m != "" && len(body) < 32<<10 && len(p.doc.anchors) <= 3 && !hasStoreMarkup(p, Platform{}, 0) {
		return wall(vendor, ReasonCaptcha, fmt.Sprintf("status %d page that only runs a captcha (%s)", st, m))
	}
	if ph := says(challengePhrases...); ph != "" && (refused || vendor != "") {
		return wall(vendor, ReasonChallenge, fmt.Sprintf("page says %q", ph))
	}
	if refused {
		if strings.Contains(title, "access denied") || strings.Contains(title, "request blocked") {
			return wall(vendor, ReasonBlocked, fmt.Sprintf("status %d with title %q", st, p.Title))
		}
	}
	return Block{}
}

// captchaPhrases in a title or <h1> mark a captcha page whatever its status.
var captchaPhrases = []string{
	"captcha", "are you a robot", "are you human", "verify you are human", "verify you are a human",
	"verifying you are human", "human verification", "bot verification", "checking your browser",
	"confirm you are human", "prove you are human", "not a robot",
}

// challengePhrases mark an interstitial that is not a captcha; they count
// on a refusing status or from an edge that names itself.
var challengePhrases = []string{"security check", "please wait", "one moment, please", "bot detected", "automated access"}

// captchaWidgets mark a captcha only on an error status or on a page that
// holds nothing else: working stores put reCAPTCHA and friends on contact
// and newsletter forms.
var captchaWidgets = []string{
	"g-recaptcha", "recaptcha/api.js", "recaptcha/enterprise.js", "recaptcha.net/recaptcha", "gstatic.com/recaptcha",
	"h-captcha", "hcaptcha.com", "challenges.cloudflare.com/turnstile", "cf-turnstile",
	"grecaptcha", "arkoselabs.com", "funcaptcha", "geetest", "frc-captcha", "friendlycaptcha.com", "friendlyChallenge",
	"captcha.eu/", "CaptchaEU", "captchaeu", "turing.captcha", "TencentCaptcha",
}

// captchaActive are calls that run a captcha as the page loads.
var captchaActive = []string{
	"grecaptcha.render", "grecaptcha.execute", "grecaptcha.enterprise.render", "hcaptcha.render", "turnstile.render",
}

// edgeVendor names the bot-wall vendor an edge identifies itself as in its
// headers, or "".
func edgeVendor(h http.Header) string {
	switch {
	case cloudflareEdge(h):
		return VendorCloudflare
	case headerContainsFold(h, "Server", "akamaighost") || headerHas(h, "Akamai-GRN"):
		return VendorAkamai
	case headerContainsFold(h, "Server", "datadome") || headerHas(h, "X-DataDome-CID"):
		return VendorDataDome
	case impervaCDN(h) || headerHas(h, "X-Iinfo"):
		return VendorImperva
	case headerHas(h, "X-Sucuri-ID"):
		return VendorSucuri
	}
	return ""
}

// cloudflareEdge reports a response served by Cloudflare.
func cloudflareEdge(h http.Header) bool {
	return headerContainsFold(h, "Server", "cloudflare") || headerHas(h, "CF-RAY")
}

// impervaCDN reports X-CDN: Incapsula or Imperva.
func impervaCDN(h http.Header) bool {
	return headerContainsFold(h, "X-CDN", "incapsula") || headerContainsFold(h, "X-CDN", "imperva")
}

// cfChallengePath reports a reference to Cloudflare's challenge platform
// other than the bot-detection script it injects into ordinary pages
// (/cdn-cgi/challenge-platform/scripts/jsd/…).
func cfChallengePath(body []byte) bool {
	const marker = "/cdn-cgi/challenge-platform/"
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(marker))
		if j < 0 {
			return false
		}
		i += j + len(marker)
		if !bytes.HasPrefix(body[i:], []byte("scripts/jsd/")) {
			return true
		}
	}
}
