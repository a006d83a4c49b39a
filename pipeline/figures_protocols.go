package pipeline

import (
	"fmt"

	"svc/datasets"
	"svc/pipeline/leaderboard"
	"svc/publish"
)

// The protocol matrix, api/protocols.json (spec 2.9): each protocol followed
// through four stages, with an evidence label per cell.

// Evidence labels of the protocol matrix.
const (
	Measured    = "Measured"
	Inferred    = "Inferred"
	NotMeasured = "Not measured"
)

const protocolsMethodology = "Each protocol (row) is followed through four stages: declare (the store publishes it), validate " +
	"(what it publishes is valid), answer (its endpoint answers an agent) and transact (an agent reaches checkout through " +
	"it; svc stops before payment and never places an order). A percentage is the share of the checked stores where the " +
	"stage was measured (n), with an evidence label: Measured (observed over plain HTTP, or by svc's browser shoppers), Inferred (from the platform, " +
	"not observed on the store) or Not measured (null: svc has no check for it, never 0). Validation is not certification."

// Protocols the matrix covers, in row order (spec 2.9).
var protocolInfos = []publish.ProtocolInfo{
	{ID: "ucp", Name: "Universal Commerce Protocol"},
	{ID: "acp", Name: "Agentic Commerce Protocol"},
	{ID: "pap", Name: "PAP"}, // named by its id only: svc has no check for it yet
	{ID: "webmcp", Name: "WebMCP"},
	{ID: "mcp", Name: "Model Context Protocol (storefront MCP)"},
	{ID: "payments", Name: "Agent payment rails"},
}

func measured(count, n int64, basis string) publish.ProtocolStage {
	if n == 0 {
		return notMeasured(basis + " No store could be measured.")
	}
	return publish.ProtocolStage{Percentage: Pct(count, n), Count: &count, N: &n, Evidence: Measured, Basis: basis}
}

func inferred(count, n int64, basis string) publish.ProtocolStage {
	s := measured(count, n, basis)
	if s.Evidence == Measured {
		s.Evidence = Inferred
	}
	return s
}

func notMeasured(basis string) publish.ProtocolStage {
	return publish.ProtocolStage{Evidence: NotMeasured, Basis: basis}
}

// ucpValidate is the matrix's UCP validate stage: not measured while any
// profile read could not be validated (groupCounts.validUCP says why).
func ucpValidate(g groupCounts) publish.ProtocolStage {
	basis := "The profile passes the UCP 2026-08-25 schema and every error-level rule."
	if g.UCPUnvalidated > 0 {
		return notMeasured(fmt.Sprintf("%s %d profiles read broke no rule but could not be validated (the run had no UCP schemas for them); "+
			"a share over the rest would count only the invalid ones.", basis, g.UCPUnvalidated))
	}
	return measured(g.UCPValid, g.UCPN, basis)
}

// buildProtocols builds protocols.json.
func buildProtocols(in *figureInputs) publish.ProtocolMatrix {
	g := in.all()
	noCheck := "svc has no check for this stage."
	cwm := g.checkoutWebMCP()
	cwmStage := inferred(g.CWMMeasuredYes+cwm.Evidence.Count+cwm.Inferred.Count, cwm.N,
		fmt.Sprintf("Checkout WebMCP tools (such as get_checkout, update_checkout, complete_checkout) at the store's checkout, out of "+
			"the stores whose platform was measured: measured at %d stores (a browser shopper reached the checkout page and read "+
			"the tools registered or declared there), seen in the server HTML at %d, inferred from the platform at %d (no shopper "+
			"reached checkout), unknown at %d. Inferred when any count rests on the platform; svc calls no checkout tool and "+
			"buyer approval is required.", g.CWMMeasured, cwm.Evidence.Count, cwm.Inferred.Count, cwm.Unknown.Count))
	if cwm.Inferred.Count == 0 && g.CWMMeasured+cwm.Evidence.Count > 0 {
		cwmStage.Evidence = Measured
	}
	cwmAnswer := notMeasured("Answering needs a browser session at the checkout page; no browser shopper of svc reached one in this run.")
	if g.CWMMeasured > 0 {
		cwmAnswer = measured(g.CWMMeasuredYes, g.CWMMeasured, "A browser shopper of svc reached the store's checkout page and "+
			"found WebMCP tools there (registered with modelContext as the page ran, or declared by a toolname form), out of "+
			"the stores whose checkout page a shopper reached. The tools were listed, never called.")
	}
	rows := []publish.ProtocolRow{
		{ID: "ucp", Stages: publish.ProtocolStages{
			Declare:  measured(g.UCPServed, g.UCPDirectoryN, "A UCP profile is served at /.well-known/ucp (valid, invalid or not validated), out of the stores where it could be read or was missing."),
			Validate: ucpValidate(g),
			Answer:   notMeasured("Whether a UCP endpoint answers is not counted apart: the UCP agent path's operations count under transact. " + noCheck),
			Transact: measured(g.UCPLink, g.UCPLinkN, "The service's UCP agent path (method "+leaderboard.MethodVersion+", SVC-100 stores) "+
				"created a checkout session over the store's REST or MCP binding, read it back and cancelled it; it never completes one "+
				"and sends no payment. n counts the stores where the path ended with or without a session, plus every checked store "+
				"whose UCP profile is missing or invalid (store_answers.ucp_checkout_link). Not an order."),
		}},
		{ID: "acp", Stages: publish.ProtocolStages{
			Declare:  measured(g.ACP, g.ACPN, "/.well-known/acp.json serves an ACP discovery document."),
			Validate: notMeasured("The discovery document is not validated against the ACP schema. " + noCheck),
			Answer:   notMeasured("ACP endpoints are not called: svc has no ACP agent path, so what is measured is the discovery document only. " + noCheck),
			Transact: notMeasured("No ACP checkout session is opened: svc has no ACP agent path. " + noCheck),
		}},
		{ID: "pap", Stages: publish.ProtocolStages{
			Declare: notMeasured(noCheck), Validate: notMeasured(noCheck),
			Answer: notMeasured(noCheck), Transact: notMeasured(noCheck),
		}},
		{ID: "webmcp", Stages: publish.ProtocolStages{
			Declare:  measured(g.WebMCP, g.WebMCPN, "A WebMCP tool (a registerTool call or a toolname form) in the homepage server HTML."),
			Validate: notMeasured("Tool declarations are not validated. " + noCheck),
			Answer:   cwmAnswer,
			Transact: cwmStage,
		}},
		{ID: "mcp", Stages: publish.ProtocolStages{
			Declare:  measured(g.Card, g.CardN, "An MCP server card at /.well-known/mcp.json, /.well-known/mcp/server-card.json or /.well-known/mcp-server-card (draft)."),
			Validate: notMeasured("Server cards and tool schemas are not validated. " + noCheck),
			Answer:   measured(g.SMCP, g.SMCPN, "The storefront MCP endpoint (POST /api/mcp) answered with catalog tools."),
			Transact: measured(g.Cart, g.CartN, "The storefront MCP cart returned a checkout link (stopped before payment; no order)."),
		}},
		{ID: "payments", Stages: publish.ProtocolStages{
			Declare: notMeasured(noCheck), Validate: notMeasured(noCheck),
			Answer: notMeasured(noCheck), Transact: notMeasured("svc stops before payment. " + noCheck),
		}},
	}
	for i := range rows {
		rows[i].Name = protocolInfos[i].Name
	}
	return publish.ProtocolMatrix{
		Rows: rows, StoresChecked: g.Checked, IndexStoresChecked: in.indexChecked,
		AsOf: in.asOf(), Methodology: protocolsMethodology, License: datasets.License, Cite: in.cite(),
		Available: g.Checked > 0, Protocols: protocolInfos,
		Stages:      []string{"declare", "validate", "answer", "transact"},
		GeneratedAt: runTime(in.run.Started),
	}
}
