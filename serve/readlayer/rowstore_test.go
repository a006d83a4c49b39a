package readlayer

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRowStoreRoundTrip codes rows with every kind of value, nulls and
// hosts inside values, and reads each back.
func TestRowStoreRoundTrip(t *testing.T) {
	codec := newRowCodec()
	b := newRowStoreBuilder(codec)
	var want []*Row
	for i := range 3000 {
		host := fmt.Sprintf("shop%05d.test", i)
		r := NewRow(host)
		r.SetStr(FName, fmt.Sprintf("Shop %d", i))
		r.SetStr(FSvcURL, "/stores/"+host+"/")
		r.SetStr(FPlatform, []string{"shopify", "woocommerce", "custom"}[i%3])
		if i%7 != 0 {
			r.SetBool(FCartLink, i%2 == 0)
		}
		if i%5 != 0 {
			r.vals[FScore] = rowValue{ok: true, n: int64(i % 101)}
		}
		r.vals[FCheckedAt] = rowValue{ok: true, n: time.Date(2026, 11, 16, 0, 0, i, 0, time.UTC).UnixMicro()}
		r.SetStr(FMCPTools, `["search_catalog"]`)
		r.SetStr(FFix, "text with a NUL \x00 inside "+host)
		want = append(want, r)
		if err := b.add(host, codec.encode(nil, r)); err != nil {
			t.Fatal(err)
		}
	}
	codec.freeze()
	s, err := b.finish()
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != len(want) || len(codec.dicts[FPlatform]) != 3 || len(codec.dicts[FSvcURL]) != 1 {
		t.Errorf("len %d, platform dictionary %v, svc_url dictionary %v", s.Len(), codec.dicts[FPlatform], codec.dicts[FSvcURL])
	}
	for _, w := range want {
		got, ok, err := s.lookup(w.host)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", w.host, ok, err)
		}
		if diff := cmp.Diff(w.vals, got.vals, cmp.AllowUnexported(rowValue{})); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", w.host, diff)
		}
	}
	for _, h := range []string{"", "a.test", "shop00000.tesu", "shop99999.test", "zzz"} {
		if _, ok, err := s.lookup(h); ok || err != nil {
			t.Errorf("lookup(%q) = %v, %v", h, ok, err)
		}
	}
	n := 0
	s.each(func(host string, rec []byte) error { n++; return nil })
	if n != len(want) {
		t.Errorf("each saw %d rows", n)
	}
	// Hosts out of order are refused.
	b2 := newRowStoreBuilder(newRowCodec())
	b2.add("b.test", nil)
	if err := b2.add("a.test", nil); err == nil {
		t.Error("out-of-order host accepted")
	}
	b2.abort()
	// An empty store answers nothing.
	empty, err := newRowStoreBuilder(newRowCodec()).finish()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := empty.lookup("a.test"); ok {
		t.Error("empty store found a host")
	}
}
