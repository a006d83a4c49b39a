package detect

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestJudgeDescription(t *testing.T) {
	for _, tt := range []struct {
		name, raw, source, product string
		friendly, useCase          bool
		issues                     []string
		phrases                    []string
	}{
		// schema.org's Product example 1 (https://schema.org/Product):
		// concrete, but too short to say enough.
		{"schema.org microwave", `0.7 cubic feet countertop microwave. Has six preset cooking categories and convenience features like Add-A-Minute and Child Lock.`,
			DescJSONLD, `Kenmore White 17" Microwave`, false, false, []string{IssueTooShort}, nil},
		// A review in the same example: "great ... for the price" names no
		// use.
		{"schema.org review text", `Great microwave for the price. It is small and fits in my apartment.`,
			DescJSONLD, "", false, false, []string{IssueTooShort}, nil},
		// WooCommerce's sample products (as copied in kimtendu/mintaka,
		// 3lesson/homework/products.php): Latin filler, and a short
		// description that only says what kind of product it is.
		{"woocommerce sample description", `<p>Pellentesque habitant morbi tristique senectus et netus et malesuada fames ac turpis egestas. Vestibulum tortor quam, feugiat vitae, ultricies eget, tempor sit amet, ante. Donec eu libero sit amet quam egestas semper. Aenean ultricies mi vitae est. Mauris placerat eleifend leo.</p>`,
			DescCatalog, "V-Neck T-Shirt", false, false, []string{IssuePlaceholder, IssueNoSpecifics}, nil},
		{"woocommerce sample short description", `This is a variable product.`,
			DescCatalog, "Hoodie", false, false, []string{IssueTooShort, IssuePlaceholder, IssueNoSpecifics}, nil},
		// Real-ish product copy.
		{"trail runner", `Built for trail running and long hikes, the Ridge Runner has a recycled mesh upper, an 8 mm drop and a grippy rubber outsole. Weighs 280 g per shoe.`,
			DescJSONLD, "Ridge Runner", true, true, nil, []string{"Built for trail running and long"}},
		{"serum for sensitive skin", `A lightweight serum for dry and sensitive skin. Apply two drops morning and night; 2% niacinamide calms redness while hyaluronic acid holds moisture. 30 ml glass bottle.`,
			DescJSONLD, "Calm Serum", true, true, nil, []string{"for dry and sensitive skin"}},
		{"use phrase", `Our insulated bottle keeps you hydrated all day. Use it to carry 750 ml of water on the trail, in the office or at the gym; double-wall stainless steel keeps drinks cold for 24 hours.`,
			DescJSONLD, "Trail Bottle", true, true, nil, []string{"keeps you hydrated all day", "Use it to carry 750 ml"}},
		{"specs without a use", `Heavyweight organic cotton tee, 220 gsm, garment-dyed and pre-shrunk. Regular fit with a ribbed collar and double-stitched hems; machine washable at 30 degrees.`,
			DescJSONLD, "Heavyweight Tee", true, false, nil, nil},
		// Markup in a plain-text field is an issue; in catalog HTML it is
		// expected and only stripped.
		{"markup in JSON-LD", `<p>Built for trail running and long hikes, the <strong>Ridge Runner</strong> has a recycled mesh upper,&nbsp;an 8 mm drop and a rubber outsole that grips wet rock.</p>`,
			DescJSONLD, "Ridge Runner", false, true, []string{IssueMarkup}, []string{"Built for trail running and long"}},
		{"HTML in catalog", `<p>Built for trail running and long hikes, the <strong>Ridge Runner</strong> has a recycled mesh upper,&nbsp;an 8 mm drop and a rubber outsole that grips wet rock.</p>`,
			DescCatalog, "Ridge Runner", true, true, nil, []string{"Built for trail running and long"}},
		{"just the name", `Ridge Runner`, DescJSONLD, "Ridge Runner", false, false, []string{IssueTooShort, IssueRepeatsName, IssueNoSpecifics}, nil},
		{"coming soon", `Description coming soon.`, DescProductMeta, "Lamp", false, false, []string{IssueTooShort, IssuePlaceholder, IssueNoSpecifics}, nil},
		// "made for life" is about durability, "for free" about price.
		{"stop words", `Made for life and shipped for free, this is the last blanket you will ever need to buy from a small mill in our valley where we have woven blankets since the old days.`,
			DescJSONLD, "Blanket", false, false, []string{IssueNoSpecifics}, nil},
		// Homepage summaries of the fixture world.
		{"tagline with an audience", `Little Fox: Toys and clothes for little ones.`, DescHomeMeta, "", false, true,
			[]string{IssueTooShort, IssueNoSpecifics}, []string{"for little ones"}},
		{"tagline without one", `Amber Fox: Everyday clothing made to last.`, DescHomeMeta, "", false, false,
			[]string{IssueTooShort, IssueNoSpecifics}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j, ok := JudgeDescription(tt.raw, tt.source, tt.product)
			if !ok {
				t.Fatal("nothing to judge")
			}
			if j.AgentFriendly() != tt.friendly || j.UseCaseMentioned() != tt.useCase {
				t.Errorf("friendly %v, use case %v; want %v, %v (%+v)", j.AgentFriendly(), j.UseCaseMentioned(), tt.friendly, tt.useCase, j)
			}
			if diff := cmp.Diff(append([]string{}, tt.issues...), j.Issues); diff != "" {
				t.Errorf("issues (-want +got):\n%s", diff)
			}
			if tt.phrases != nil {
				if diff := cmp.Diff(tt.phrases, j.UseCases); diff != "" {
					t.Errorf("use cases (-want +got):\n%s", diff)
				}
			}
			if strings.ContainsAny(j.Text, "<>") || strings.Contains(j.Text, "&nbsp;") || strings.Contains(j.Text, "  ") {
				t.Errorf("text not clean: %q", j.Text)
			}
		})
	}
}

func TestJudgeDescriptionBounds(t *testing.T) {
	if _, ok := JudgeDescription(" <p> </p> &nbsp; ", DescJSONLD, "x"); ok {
		t.Error("judged a text of white space and tags")
	}
	long := strings.Repeat("Solid oak board for kitchen use, 40 cm long. ", 100)
	j, ok := JudgeDescription(long, DescJSONLD, "Board")
	if !ok || len([]rune(j.Text)) > MaxDescriptionText || !j.AgentFriendly() || len(j.UseCases) > 5 {
		t.Errorf("long text: %d characters, friendly %v, %d use cases", len([]rune(j.Text)), j.AgentFriendly(), len(j.UseCases))
	}
}

// FuzzMarketAndDescription holds the market and description readers to
// their invariants on any page and any text.
func FuzzMarketAndDescription(f *testing.F) {
	f.Add(strings.ReplaceAll(spanishStore, "CURRENCY", `"priceCurrency":"EUR",`), `<p>Built for trail running, 8 mm drop.</p>`, DescJSONLD)
	f.Add(strings.NewReplacer("LANG", "en-US", "OGLOCALE", "en_US", "PRICECUR", "CAD").Replace(wordpressDefaults), `This is a variable product.`, DescCatalog)
	f.Add(`<html lang="zh-Hant-TW"><link rel=alternate hreflang=fr-FR href=/><script>Shopify.currency = {"active":"eur"}</script>`, "&amp;&#0;<!--", DescHomeMeta)
	u, _ := url.Parse("https://shop.example/")
	f.Fuzz(func(t *testing.T, body, text, source string) {
		s := ReadMarketSignals(NewPage(u, 200, nil, []byte(body)))
		m := DecideMarket(s)
		if (m.Country == "") != (m.Basis == "") || (m.Country != "" && countryCode(m.Country) != m.Country) {
			t.Fatalf("market %+v from %+v", m, s)
		}
		j, ok := JudgeDescription(text, source, body[:min(len(body), 40)])
		if !ok {
			return
		}
		if !utf8.ValidString(j.Text) || utf8.RuneCountInString(j.Text) > MaxDescriptionText || len(j.UseCases) > 5 {
			t.Fatalf("judgement %+v", j)
		}
		for _, uc := range j.UseCases {
			if !strings.Contains(j.Text, uc) {
				t.Fatalf("use case %q not in the text %q", uc, j.Text)
			}
		}
	})
}

// BenchmarkMarketAndDescription is what the check adds per page read: the
// market declarations (a head scan and the JSON-LD blocks) and one
// description judged. Compare with BenchmarkNewPage, the page's one scan.
func BenchmarkMarketAndDescription(b *testing.B) {
	u, _ := url.Parse("https://shop.example/products/trail-shoe")
	p := NewPage(u, 200, nil, []byte(benchProductPage))
	desc := `<p>Built for trail running and long hikes, the Ridge Runner has a recycled mesh upper, an 8 mm drop and a grippy rubber outsole. Weighs 280 g per shoe.</p>`
	b.ReportAllocs()
	b.SetBytes(int64(len(benchProductPage)))
	for b.Loop() {
		DecideMarket(ReadMarketSignals(p))
		JudgeDescription(desc, DescCatalog, "Ridge Runner")
		MetaDescription(p)
	}
}
