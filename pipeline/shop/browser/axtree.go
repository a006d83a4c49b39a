// The accessibility tree as a shopper reads it: Accessibility.getFullAXTree
// decoded into the few fields kept of each node.

package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/go-json-experiment/json/jsontext"
)

// AXTree returns the page's full accessibility tree (main frame), with
// what a shopper reads of each node: its id, parent and children, role,
// whether it is ignored, its DOM node, the states disabled, checked,
// pressed, selected and its url, and its name where axNamed keeps it. The
// protocol's answer is decoded into that much only: the full nodes (every
// name's sources, descriptions, related nodes) of a page with a few
// megabytes of text came to about 200 MB in svc for a single reading.
func (p *Page) AXTree(ctx context.Context) ([]*accessibility.Node, error) {
	nodes, err := p.axTree(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("accessibility tree: %w", err)
	}
	return nodes, nil
}

// axTree reads the tree of frame f (the main frame when "").
func (p *Page) axTree(ctx context.Context, f cdp.FrameID) ([]*accessibility.Node, error) {
	ctx, cancel := p.with(ctx)
	defer cancel()
	res, err := chromedp.Call(ctx, getLeanAXTree, accessibility.GetFullAXTreeParams{FrameID: f})
	if err != nil {
		return nil, err
	}
	out := make([]*accessibility.Node, len(res.Nodes))
	for i, w := range res.Nodes {
		n := &accessibility.Node{NodeID: w.NodeID, Ignored: w.Ignored, ParentID: w.ParentID,
			ChildIDs: w.ChildIDs, BackendDOMNodeID: w.BackendDOMNodeID, Role: w.Role.value()}
		if role, _ := unquote(w.Role); axNamed[role] {
			n.Name = w.Name.value()
		} else if role == "StaticText" {
			// A short text (a price, an option's name over its values)
			// is read; a paragraph is not kept.
			if t, ok := unquote(w.Name); ok && len(t) <= maxAXText {
				n.Name = w.Name.value()
			}
		}
		for _, pr := range w.Properties {
			if axKept[pr.Name] {
				n.Properties = append(n.Properties, &accessibility.Property{Name: pr.Name, Value: pr.Value.value()})
			}
		}
		out[i] = n
	}
	return out, nil
}

// axNamed are the roles whose accessible name a shopper reads: the
// controls it acts on, the options of a select, and the dialogs and
// groups around them. Other nodes (text, headings, generic containers)
// are kept without their name.
var axNamed = map[string]bool{
	"button": true, "link": true, "combobox": true, "menuitem": true, "radio": true, "checkbox": true,
	"tab": true, "switch": true, "option": true, "menuitemradio": true, "PopUpButton": true,
	"MenuListOption": true, "listbox": true, "dialog": true, "alertdialog": true, "group": true, "radiogroup": true,
	// B finds a consent manager by the name of its iframe or region.
	"Iframe": true, "region": true,
}

// maxAXText is the longest static text whose words the tree keeps.
const maxAXText = 80

// axKept are the properties a shopper reads.
var axKept = map[accessibility.PropertyName]bool{
	accessibility.PropertyNameDisabled: true, accessibility.PropertyNameChecked: true,
	accessibility.PropertyNamePressed: true, accessibility.PropertyNameSelected: true,
	accessibility.PropertyNameURL: true,
}

// getLeanAXTree is Accessibility.getFullAXTree decoded into leanAXNode.
var getLeanAXTree = cdp.Command[accessibility.GetFullAXTreeParams, struct {
	Nodes []leanAXNode `json:"nodes"`
}]{Method: accessibility.CommandGetFullAXTree}

// leanAXNode is the part of a protocol AXNode a shopper reads; the
// decoder skips the rest.
type leanAXNode struct {
	NodeID           accessibility.NodeID   `json:"nodeId"`
	Ignored          bool                   `json:"ignored"`
	Role             *leanAXValue           `json:"role"`
	Name             *leanAXValue           `json:"name"`
	Properties       []leanAXProperty       `json:"properties"`
	ParentID         accessibility.NodeID   `json:"parentId"`
	ChildIDs         []accessibility.NodeID `json:"childIds"`
	BackendDOMNodeID cdp.BackendNodeID      `json:"backendDOMNodeId"`
}

type leanAXProperty struct {
	Name  accessibility.PropertyName `json:"name"`
	Value *leanAXValue               `json:"value"`
}

type leanAXValue struct {
	Type  accessibility.ValueType `json:"type"`
	Value json.RawMessage         `json:"value"`
}

func (v *leanAXValue) value() *accessibility.Value {
	if v == nil {
		return nil
	}
	return &accessibility.Value{Type: v.Type, Value: jsontext.Value(v.Value)}
}

// unquote returns a value that is a JSON string.
func unquote(v *leanAXValue) (string, bool) {
	var s string
	if v == nil || json.Unmarshal(v.Value, &s) != nil {
		return "", false
	}
	return s, true
}
