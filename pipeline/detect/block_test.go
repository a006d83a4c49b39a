package detect

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDetectBlock(t *testing.T) {
	const store = `<html><head><title>Acme Shoes</title></head><body><h1>Shoes</h1><a href="/cart">Cart</a></body></html>`
	tests := []struct {
		name   string
		url    string
		status int
		header http.Header
		body   string
		want   Block
	}{
		{name: "ordinary store page", status: 200, body: store, want: Block{}},
		{name: "plain 404 is not a block", status: 404, body: "<h1>Not found</h1>", want: Block{}},
		{name: "plain 503 is not a block", status: 503, body: "Service unavailable", want: Block{}},
		{
			name: "plain 403 is forbidden, not a wall", status: 403, header: hdr("Server", "nginx"), body: "Forbidden",
			want: Block{Blocked: true, Reason: ReasonForbidden},
		},
		{
			name: "cloudflare cf-mitigated header", status: 403, header: hdr("Cf-Mitigated", "challenge", "Server", "cloudflare"), body: "",
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "cloudflare just a moment title", status: 503,
			body: `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>`,
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "cloudflare _cf_chl_opt", status: 403,
			body: `<script>window._cf_chl_opt={cvId: '3'}</script>`,
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "cloudflare challenge platform path", status: 403,
			body: `<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=1"></script>`,
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "cloudflare bot script on a normal page is not a block", status: 200,
			body: store + `<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>`,
			want: Block{},
		},
		{
			name: "cloudflare block page", status: 403,
			body: `<title>Attention Required! | Cloudflare</title><div id="cf-error-details">Sorry, you have been blocked</div>`,
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "akamai access denied", status: 403, header: hdr("Server", "AkamaiGHost"),
			body: `<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY><H1>Access Denied</H1>You don't have permission. Reference #18.1234.5678</BODY></HTML>`,
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorAkamai, Wall: true},
		},
		{
			name: "akamai server header on 403", status: 403, header: hdr("Server", "AkamaiGHost"), body: "",
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorAkamai, Wall: true},
		},
		{
			name: "akamai server header on 200 is not a block", status: 200, header: hdr("Server", "AkamaiGHost"), body: store,
			want: Block{},
		},
		{
			name: "imperva incident", status: 200, header: hdr("Set-Cookie", "visid_incap_123=x", "Set-Cookie", "incap_ses_1_2=y"),
			body: `<html><body>Request unsuccessful. Incapsula incident ID: 123-456</body></html>`,
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorImperva, Wall: true},
		},
		{
			name: "imperva cookies on a normal page", status: 200, header: hdr("Set-Cookie", "visid_incap_123=x"), body: store,
			want: Block{},
		},
		{
			name: "imperva cookies on 403", status: 403, header: hdr("Set-Cookie", "incap_ses_1_2=y"), body: "",
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorImperva, Wall: true},
		},
		{
			name: "perimeterx", status: 403,
			body: `<div id="px-captcha"></div><a href="https://www.perimeterx.com/whywasiblocked">why</a>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorPerimeterX, Wall: true},
		},
		{
			name: "sucuri block header", status: 403, header: hdr("X-Sucuri-Block", "BOT", "X-Sucuri-ID", "1"), body: "",
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorSucuri, Wall: true},
		},
		{
			name: "sucuri id on a normal page", status: 200, header: hdr("X-Sucuri-ID", "1"), body: store,
			want: Block{},
		},
		{
			name: "aws waf header", status: 403, header: hdr("X-Blocked-By-WAF", "true"), body: "",
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorAWSWAF, Wall: true},
		},
		{
			name: "aws waf challenge action", status: 202, header: hdr("X-Amzn-Waf-Action", "challenge"), body: "",
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorAWSWAF, Wall: true},
		},
		{
			name: "datadome captcha iframe", status: 403, header: hdr("Set-Cookie", "datadome=abc"),
			body: `<html><body><iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=x"></iframe></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorDataDome, Wall: true},
		},
		{
			name: "datadome cookie on a normal page", status: 200, header: hdr("Set-Cookie", "datadome=abc"), body: store,
			want: Block{},
		},
		{
			name: "siteground 202 refresh", status: 202,
			body: `<html><head><meta http-equiv="refresh" content="0;/.well-known/sgcaptcha/?r=%2F&y=ipr:1"></head></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorSiteGround, Wall: true},
		},
		{
			name: "siteground final URL", url: "https://shop.example/.well-known/sgcaptcha/?r=%2F", status: 200, body: "<html></html>",
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorSiteGround, Wall: true},
		},
		{
			name: "429 with retry-after", status: 429, header: hdr("Retry-After", "30"), body: "Too many requests",
			want: Block{Blocked: true, Reason: ReasonRateLimited, RetryAfter: "30"},
		},
		{
			name: "429 that is a cloudflare challenge", status: 429, header: hdr("Cf-Mitigated", "challenge", "Retry-After", "5"),
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true, RetryAfter: "5"},
		},
		{
			name: "402 pay per crawl", status: 402, header: hdr("Server", "cloudflare", "Crawler-Price", "USD 0.01"),
			want: Block{Blocked: true, Reason: ReasonPaymentRequired, Vendor: VendorCloudflare},
		},
		{
			name: "402 bare", status: 402,
			want: Block{Blocked: true, Reason: ReasonPaymentRequired},
		},
		{
			name: "generic captcha title", status: 200,
			body: `<html><head><title>Please verify you are human</title></head><body>...</body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Wall: true},
		},
		{
			name: "recaptcha on an error page", status: 403,
			body: `<html><body><div class="g-recaptcha" data-sitekey="x"></div></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Wall: true},
		},
		{
			name: "recaptcha on a working store page is not a block", status: 200,
			body: store + `<form action="/contact"><div class="g-recaptcha"></div></form>`,
			want: Block{},
		},
		// Issue 18: Cloudflare Bot Fight Mode, vendors named by the edge,
		// captchas reported as captchas.
		{
			name: "cloudflare bot fight mode 503, the moment in a heading", status: 503, header: hdr("Server", "cloudflare", "CF-RAY", "8f3a-IAD"),
			body: `<html><head><meta name="robots" content="noindex"></head><body><h1>Just a moment...</h1>
				<script>(function(){window.__CF$cv$params={r:'8f3a',t:'MTc'};var a=document.createElement('script');
				a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';document.head.appendChild(a);})();</script></body></html>`,
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "cloudflare bot fight mode 503 with the title", status: 503, header: hdr("Server", "cloudflare"),
			body: `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body><noscript>Enable JavaScript and cookies to continue</noscript>
				<script>window.__CF$cv$params={r:'8f',t:'MTc'};</script><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></body></html>`,
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "the jsd beacon on an origin 503 is not a wall", status: 503, header: hdr("Server", "cloudflare"),
			body: `<html><head><title>Down for maintenance</title></head><body><h1>Back soon</h1>
				<script>window.__CF$cv$params={r:'8f',t:'MTc'};</script><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></body></html>`,
			want: Block{},
		},
		{
			name: "a challenge served by Cloudflare names Cloudflare", status: 403, header: hdr("Server", "cloudflare"),
			body: `<html><head><title>Verify you are human</title></head><body><p>Please wait.</p></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "a security check served by Cloudflare", status: 403, header: hdr("CF-RAY", "8f3a-IAD"),
			body: `<html><head><title>Security check</title></head><body></body></html>`,
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "cloudflare turnstile challenge is a captcha", status: 403, header: hdr("Cf-Mitigated", "challenge"),
			body: `<html><head><title>Just a moment...</title></head><body><div class="cf-turnstile" data-sitekey="0x4AAA"></div>
				<script src="/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/src/x"></script></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorCloudflare, Wall: true},
		},
		{
			name: "recaptcha enterprise on an access denied page is a captcha", status: 403,
			body: `<html><head><title>Access denied</title><script src="https://www.google.com/recaptcha/enterprise.js"></script></head><body></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Wall: true},
		},
		{
			name: "hcaptcha on a 429", status: 429, header: hdr("Retry-After", "60"),
			body: `<html><body><div class="h-captcha" data-sitekey="x"></div><script src="https://js.hcaptcha.com/1/api.js"></script></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Wall: true, RetryAfter: "60"},
		},
		{
			name: "a 200 page that only runs a captcha", status: 200,
			body: `<html><head><title>One more step</title></head><body><div class="g-recaptcha" id="c"></div>
				<script>grecaptcha.render("c", {sitekey: "k", callback: go})</script></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Wall: true},
		},
		{
			name: "vercel attack challenge mode", status: 429, header: hdr("X-Vercel-Mitigated", "challenge"),
			want: Block{Blocked: true, Reason: ReasonChallenge, Vendor: VendorVercel, Wall: true},
		},
		{
			name: "HUMAN press and hold from its own CDN", status: 403,
			body: `<html><head><title>Access to this page has been denied</title></head><body><p>Press &amp; Hold to confirm you are a human.</p>
				<script src="https://captcha.px-cdn.net/PX1/captcha.js"></script></body></html>`,
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorPerimeterX, Wall: true},
		},
		{
			name: "datadome x-dd-b captcha header", status: 403, header: hdr("X-DD-B", "2"),
			want: Block{Blocked: true, Reason: ReasonCaptcha, Vendor: VendorDataDome, Wall: true},
		},
		{
			name: "sucuri firewall page, any case", status: 403,
			body: `<html><head><title>Sucuri Website Firewall - Access Denied</title></head></html>`,
			want: Block{Blocked: true, Reason: ReasonBlocked, Vendor: VendorSucuri, Wall: true},
		},
		{
			name: "generic access denied page", status: 401,
			body: `<html><head><title>Access Denied</title></head><body>No.</body></html>`,
			want: Block{Blocked: true, Reason: ReasonBlocked, Wall: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.url
			if raw == "" {
				raw = "https://shop.example/"
			}
			u, _ := url.Parse(raw)
			got := DetectBlock(NewPage(u, tt.status, tt.header, []byte(tt.body)))
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Block{}, "Evidence")); diff != "" {
				t.Errorf("DetectBlock mismatch (-want +got):\n%s", diff)
			}
			if got.Blocked && len(got.Evidence) == 0 {
				t.Error("blocked without evidence")
			}
		})
	}
}
