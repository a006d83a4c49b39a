package ciclient

import (
	"encoding/json"
	"testing"
)

// FuzzAnswers feeds any JSON object the API might answer to the typed
// reading and every rule: an answer of any shape is read without a panic,
// and every check comes out as one of the three statuses.
func FuzzAnswers(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"valid":true,"declaredVersion":"2026-08-25","counts":{"warnings":2},"source":{"status":200}}`,
		`{"valid":false,"source":{"status":404,"profileUrl":"https://a.test/.well-known/ucp"},"profile":null}`,
		`{"valid":false,"counts":{"errors":4},"errors":[{"rule":"a"},{"rule":"b"},{"rule":"a"},{"rule":"c"},{"rule":"d"}],"profile":{}}`,
		`{"webmcp":true,"webmcpDetail":{"tools":["x",1]},"catalogAnswered":true,"productFound":null,"catalog":{"throttled":true}}`,
		`{"robots":{"status":"ok","agents":{"A":{"purpose":"user","verdict":"disallowed"},"B":[]}}}`,
		`{"productData":{"source":"jsonld","complete":false},"policies":{"returns":false,"terms":null}}`,
		`{"blockStatus":{"blocked":true},"reachability":{"reachable":false,"httpStatus":1e300}}`,
		`{"reachability":{"reachable":false,"httpStatus":-9.2e18,"parked":true}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		var rep UCPReport
		var ans CheckAnswer
		decode(&rep, v)
		decode(&ans, v)
		outs := []Outcome{evalUCP(&rep)}
		for _, n := range Names[1:] {
			outs = append(outs, savedRules[n](&ans))
		}
		for _, o := range outs {
			if o.Status != StatusPass && o.Status != StatusFail && o.Status != StatusUnmeasured || o.Detail == "" {
				t.Fatalf("outcome %+v", o)
			}
		}
	})
}
