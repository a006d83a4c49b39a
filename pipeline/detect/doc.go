// Package detect holds the pure detectors of the store check engine: given
// what a store answered (status code, headers, body, final URL) they return
// typed findings together with the evidence that supports them.
//
// Nothing here touches the network. The engine fetches robots.txt, the
// homepage, a product page, catalog JSON and first-party scripts, and hands
// the bytes over; the detectors only read them. Keeping I/O out lets the live
// check, the crawl and the fuzz targets run the same code, and lets every
// finding be tested against literal inputs.
//
// The detectors, by input:
//
//   - robots.txt: RobotsFromResponse (status rules of RFC 9309) or
//     ParseRobots, then Robots.Match or RobotsReport over AIAgents.
//   - an HTML page: NewPage scans it once; ExtractJSONLD, DetectWebMCP,
//     DetectPlatform, DetectBlock, DetectParked and FindPolicies read the
//     scan. ScanScript reads a first-party script DetectWebMCP listed.
//   - catalog JSON: ParseShopifyProducts, ParseWooProducts; CheckJSON for a
//     soft 404 and DetectThrottle for an empty answer that was throttled.
//   - URLs: DetectRedirect, RegistrableDomain, SameSite.
//
// Every detector bounds what it reads (MaxHTMLBytes, MaxRobotsBytes,
// MaxScriptBytes and internal caps) and must not panic on hostile input:
// stores are untrusted, and one odd page must never take a crawl down.
//
// What server HTML cannot show: tools that a platform script registers with
// WebMCP at runtime (see WebMCPCaveat), walls that only trigger on browser
// fingerprints, and prices rendered by client-side code. Findings say so
// rather than guess.
package detect
