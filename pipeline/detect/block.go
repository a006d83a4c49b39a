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
	cookies := cookieNames(h)
	hasCookie := func(prefix string) bool {
		for _, c := range cookies {
			if strings.HasPrefix(strings.ToLower(c), prefix) {
				return true
			}
		}
		return false
	}
	wall := func(vendor, reason string, ev ...string) Block {
		return Block{Blocked: true, Reason: reason, Vendor: vendor, Evidence: ev}
	}

	// Cloudflare.
	if headerContainsFold(h, "Cf-Mitigated", "challenge") {
		return wall(VendorCloudflare, ReasonChallenge, "header cf-mitigated: challenge")
	}
	if contains(body, "_cf_chl_opt") {
		return wall(VendorCloudflare, ReasonChallenge, "body contains _cf_chl_opt")
	}
	if strings.HasPrefix(title, "just a moment") {
		return wall(VendorCloudflare, ReasonChallenge, fmt.Sprintf("title %q", p.Title))
	}
	if cfChallengePath(body) {
		return wall(VendorCloudflare, ReasonChallenge, "body loads /cdn-cgi/challenge-platform/ (not the jsd script)")
	}
	if st == http.StatusForbidden && (strings.Contains(title, "attention required! | cloudflare") ||
		contains(body, "cf-error-details") || contains(body, "Sorry, you have been blocked")) {
		return wall(VendorCloudflare, ReasonBlocked, "Cloudflare block page")
	}

	// SiteGround answers 202 and sends the browser to its captcha.
	if p.URL != nil && strings.HasPrefix(p.URL.Path, "/.well-known/sgcaptcha") {
		return wall(VendorSiteGround, ReasonCaptcha, "redirected to /.well-known/sgcaptcha/")
	}
	if strings.Contains(h.Get("Location"), "/.well-known/sgcaptcha") || contains(body, "/.well-known/sgcaptcha") {
		return wall(VendorSiteGround, ReasonCaptcha, fmt.Sprintf("status %d pointing to /.well-known/sgcaptcha/", st))
	}

	// DataDome.
	if contains(body, "captcha-delivery.com") {
		return wall(VendorDataDome, ReasonCaptcha, "captcha from captcha-delivery.com")
	}
	if st == http.StatusForbidden && (hasCookie("datadome") || headerHas(h, "X-DataDome") || headerHas(h, "X-DD-B")) {
		return wall(VendorDataDome, ReasonBlocked, "status 403 with DataDome cookie or header")
	}

	// PerimeterX / HUMAN.
	if contains(body, "perimeterx.com/whywasiblocked") || contains(body, "px-captcha") || contains(body, "_pxCaptcha") {
		return wall(VendorPerimeterX, ReasonCaptcha, "PerimeterX block page")
	}
	if st == http.StatusForbidden && (contains(body, "_pxAppId") || hasCookie("_px")) {
		return wall(VendorPerimeterX, ReasonBlocked, "status 403 with PerimeterX markers")
	}

	// Imperva / Incapsula (and Distil, now Imperva bot protection).
	if contains(body, "Incapsula incident ID") {
		return wall(VendorImperva, ReasonBlocked, "body contains Incapsula incident ID")
	}
	if strings.Contains(title, "pardon our interruption") {
		return wall(VendorImperva, ReasonChallenge, fmt.Sprintf("title %q", p.Title))
	}
	if contains(body, "_Incapsula_Resource") && (st >= 400 || len(body) < 8<<10) {
		return wall(VendorImperva, ReasonChallenge, "small page loading _Incapsula_Resource")
	}
	if st == http.StatusForbidden && (hasCookie("incap_ses") || hasCookie("visid_incap")) {
		return wall(VendorImperva, ReasonBlocked, "status 403 with Incapsula cookies")
	}

	// Sucuri.
	if headerHas(h, "X-Sucuri-Block") {
		return wall(VendorSucuri, ReasonBlocked, "header X-Sucuri-Block")
	}
	if contains(body, "Sucuri WebSite Firewall") && (st >= 400 || contains(body, "Access Denied")) {
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
	if st >= 400 && contains(body, "AwsWafIntegration") {
		return wall(VendorAWSWAF, ReasonChallenge, "AWS WAF challenge script")
	}

	// Akamai.
	if contains(body, "/_sec/cp_challenge/") {
		return wall(VendorAkamai, ReasonChallenge, "Akamai sensor challenge /_sec/cp_challenge/")
	}
	if contains(body, "Access Denied") && contains(body, "Reference #") {
		return wall(VendorAkamai, ReasonBlocked, "Access Denied page with Reference #")
	}
	if st == http.StatusForbidden && headerContainsFold(h, "Server", "akamaighost") {
		return wall(VendorAkamai, ReasonBlocked, "status 403 from Server: AkamaiGHost")
	}

	// Generic captcha and block pages.
	heading := strings.ToLower(p.doc.h1)
	for _, phrase := range captchaPhrases {
		if strings.Contains(title, phrase) || strings.Contains(heading, phrase) {
			return wall("", ReasonCaptcha, fmt.Sprintf("page says %q", phrase))
		}
	}
	if st >= 400 {
		for _, m := range captchaWidgets {
			if contains(body, m) {
				return wall("", ReasonCaptcha, fmt.Sprintf("status %d page with %s", st, m))
			}
		}
		if strings.Contains(title, "access denied") || strings.Contains(title, "request blocked") {
			return wall("", ReasonBlocked, fmt.Sprintf("status %d with title %q", st, p.Title))
		}
	}
	return Block{}
}

// captchaPhrases in a title or <h1> mark a captcha page whatever its status.
var captchaPhrases = []string{
	"captcha", "are you a robot", "are you human", "verify you are human", "verify you are a human",
	"verifying you are human", "human verification", "bot verification", "checking your browser",
}

// captchaWidgets mark a captcha only on an error status: working stores put
// reCAPTCHA and friends on contact and newsletter forms.
var captchaWidgets = []string{
	"g-recaptcha", "recaptcha/api.js", "h-captcha", "hcaptcha.com", "challenges.cloudflare.com/turnstile", "cf-turnstile",
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
