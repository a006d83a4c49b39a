package ucp

import (
	"bytes"
	"encoding/json"
)

// CountsInDirectory is the directory's lighter test of a UCP profile (spec
// 4.2.3): ucp.version is a dated version (a real YYYY-MM-DD date) and
// ucp.services has a dev.ucp.shopping service with at least one binding (or
// the launch-era service object). It ignores everything else, so a store can
// count here while its full report still carries warnings or even errors.
func CountsInDirectory(profile []byte) bool {
	if len(profile) == 0 || len(profile) > MaxProfileBytes || nesting(profile) > maxDepth {
		return false
	}
	// Decode into maps: struct decoding would match "UCP" or "Version" too.
	var doc map[string]any
	if err := json.NewDecoder(bytes.NewReader(profile)).Decode(&doc); err != nil {
		return false
	}
	u, _ := doc["ucp"].(map[string]any)
	v, _ := u["version"].(string)
	services, _ := u["services"].(map[string]any)
	if !validDate(v) {
		return false
	}
	switch s := services["dev.ucp.shopping"].(type) {
	case []any:
		for _, e := range s {
			if _, ok := e.(map[string]any); ok {
				return true
			}
		}
	case map[string]any:
		return len(s) > 0
	}
	return false
}
