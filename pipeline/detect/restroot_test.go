package detect

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRESTAPIRoots holds the REST root announcements of real WordPress
// pages. The formats are WordPress core's: rest_output_link_header() sends
// `Link: <%s>; rel="https://api.w.org/"` and rest_output_link_wp_head()
// prints `<link rel="https://api.w.org/" href="%s" />`, %s being
// get_rest_url() (wp-includes/rest-api.php, WordPress 6.1.9 as Debian 12
// ships it); wp_shortlink_header() adds `Link: <%s>; rel=shortlink`
// (wp-includes/link-template.php).
func TestRESTAPIRoots(t *testing.T) {
	tests := []struct {
		name   string
		page   string
		header http.Header
		html   string
		want   []string
	}{
		{
			name:   "pretty permalinks: get_rest_url is home_url(/wp-json/)",
			header: hdr("Link", `<https://shop.example/wp-json/>; rel="https://api.w.org/"`),
			want:   []string{"https://shop.example/wp-json/"},
		},
		{
			name: "plain permalinks, WordPress 6.1: index.php?rest_route=/ (header and head)",
			header: hdr("Link", `<https://shop.example/index.php?rest_route=/>; rel="https://api.w.org/"`,
				"Link", `<https://shop.example/?p=12>; rel=shortlink`),
			html: `<link rel="https://api.w.org/" href="https://shop.example/index.php?rest_route=/" />`,
			want: []string{"https://shop.example/index.php?rest_route=/"},
		},
		{
			name:   "plain permalinks without index.php: ?rest_route=/",
			header: hdr("Link", `<https://shop.example/?rest_route=/>; rel="https://api.w.org/"`),
			want:   []string{"https://shop.example/?rest_route=/"},
		},
		{
			name:   "PATHINFO permalinks: /index.php/wp-json/",
			header: hdr("Link", `<https://shop.example/index.php/wp-json/>; rel="https://api.w.org/"`),
			want:   []string{"https://shop.example/index.php/wp-json/"},
		},
		{
			name: "one header folded by a proxy, the REST root second",
			header: hdr("Link", `<https://shop.example/?p=7>; rel=shortlink, <https://shop.example/wp-json/>; rel="https://api.w.org/", `+
				`<https://shop.example/wp-json/wp/v2/pages/7>; rel="alternate"; type="application/json"`),
			want: []string{"https://shop.example/wp-json/"},
		},
		{
			name: "only in the head, a renamed prefix (rest_url_prefix filter) in a subfolder",
			html: `<link rel='https://api.w.org/' href='https://shop.example/store/api/' />`,
			want: []string{"https://shop.example/store/api/"},
		},
		{
			name:   "www and apex are one site",
			page:   "https://www.shop.example/",
			header: hdr("Link", `<https://shop.example/wp-json/>; rel="https://api.w.org/"`),
			want:   []string{"https://shop.example/wp-json/"},
		},
		{
			name:   "a root on another site is not the store's",
			header: hdr("Link", `<https://api.other.example/wp-json/>; rel="https://api.w.org/"`),
		},
		{
			name:   "other relations are not REST roots",
			header: hdr("Link", `<https://shop.example/wp-json/wp/v2/pages/7>; rel="alternate"; type="application/json"`),
			html:   `<link rel="alternate" type="application/json" href="https://shop.example/wp-json/wp/v2/pages/7" /><link rel="stylesheet" href="/x.css">`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.page
			if raw == "" {
				raw = "https://shop.example/"
			}
			u, _ := url.Parse(raw)
			var got []string
			for _, r := range RESTAPIRoots(NewPage(u, 200, tt.header, []byte("<html><head>"+tt.html+"</head><body></body></html>"))) {
				got = append(got, r.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RESTAPIRoots (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRESTRoute: a route is appended as WordPress's rest_url() does.
func TestRESTRoute(t *testing.T) {
	for _, tc := range []struct{ root, want string }{
		{"https://shop.example/wp-json/", "https://shop.example/wp-json/wc/store/v1/products"},
		{"https://shop.example/wp-json", "https://shop.example/wp-json/wc/store/v1/products"},
		{"https://shop.example/index.php/wp-json/", "https://shop.example/index.php/wp-json/wc/store/v1/products"},
		{"https://shop.example/?rest_route=/", "https://shop.example/?rest_route=/wc/store/v1/products"},
		{"https://shop.example/index.php?rest_route=/", "https://shop.example/index.php?rest_route=/wc/store/v1/products"},
		{"https://shop.example/?rest_route=%2F", "https://shop.example/?rest_route=/wc/store/v1/products"},
		{"https://shop.example/?lang=de&rest_route=/", "https://shop.example/?lang=de&rest_route=/wc/store/v1/products"},
	} {
		root, _ := url.Parse(tc.root)
		if got := RESTRoute(root, "/wc/store/v1/products").String(); got != tc.want {
			t.Errorf("RESTRoute(%s) = %s, want %s", tc.root, got, tc.want)
		}
	}
}
