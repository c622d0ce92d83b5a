package ui

import (
	"encoding/json"

	"github.com/poppy-browser/poppy-browser/control"
	"github.com/poppy-browser/poppy-browser/spec"
)

// inMsg is a message from the User. Fields are used by type.
type inMsg struct {
	Type       string   `json:"type"`
	Event      string   `json:"event,omitempty"`
	X          *float64 `json:"x,omitempty"`
	Y          *float64 `json:"y,omitempty"`
	Button     string   `json:"button,omitempty"`
	ClickCount int      `json:"clickCount,omitempty"`
	DeltaX     float64  `json:"deltaX,omitempty"`
	DeltaY     float64  `json:"deltaY,omitempty"`
	Key        string   `json:"key,omitempty"`
	Text       string   `json:"text,omitempty"`
	Selector   string   `json:"selector,omitempty"`
	Accept     *bool    `json:"accept,omitempty"` // "dialog": OK (true) or Cancel (false)
	// "viewer": the screen the live view is shown on.
	Width  float64 `json:"width,omitempty"`
	Height float64 `json:"height,omitempty"`
	Scale  float64 `json:"scale,omitempty"`
	Mobile bool    `json:"mobile,omitempty"`
	Touch  bool    `json:"touch,omitempty"`
	// "touch": the fingers on the picture.
	Points []touchPoint `json:"points,omitempty"`
	// "nav" (back, forward, reload, go with URL) and "tab" (select, close
	// with Index).
	Action string `json:"action,omitempty"`
	URL    string `json:"url,omitempty"`
	Index  *int   `json:"index,omitempty"`
	// "presence": the passkey's answer (a PublicKeyCredential as JSON)
	// to the view's ceremony.
	Credential json.RawMessage `json:"credential,omitempty"`
	// "file_begin", "file_chunk", "file_cancel": the files the User sends
	// the page's chooser Request (files.go), and their bytes in order.
	Request uint64     `json:"request,omitempty"`
	Files   []fileMeta `json:"files,omitempty"`
	Data    []byte     `json:"data,omitempty"`
	// "download_get": the download of the User's turn to send (downloads.go).
	Download string `json:"download,omitempty"`
}

// stateMsg tells the User who holds the browser and what the agent offers.
type stateMsg struct {
	Type       string          `json:"type"` // "state"
	Controller spec.Controller `json:"controller"`
	Offer      *control.Offer  `json:"offer,omitempty"`
	// URL is the address of the tab the live view shows, so the User sees
	// which site they would type into. It is the page's (a website's) text.
	URL string `json:"url,omitempty"`
	// Dialog is the JavaScript dialog open in that tab: during the User's
	// turn it is theirs to answer ({"type":"dialog"}).
	Dialog *dialogMsg `json:"dialog,omitempty"`
	// Viewer says, while the User holds control, which viewer holds it:
	// "you" (this one), "another" (another live view); absent when none
	// does yet (the User took it at the terminal).
	Viewer string `json:"viewer,omitempty"`
	// Tabs lists the open tabs when there are several.
	Tabs []tabMsg `json:"tabs,omitempty"`
	// Company names the Company (poppy.json's organization name, else its
	// domain), for "the Company's page says".
	Company string `json:"company,omitempty"`
	// Story is what happened last: the User's hand back, cancel or
	// decline, or the end of the agent's task.
	Story *storyMsg `json:"story,omitempty"`
	// StepBox is where the element the offer is about was on the agent's
	// page (viewport CSS pixels), for the live view to outline it while the
	// agent holds control.
	StepBox *boxMsg `json:"step_box,omitempty"`
	// Presence says whether the User proved their presence in this view
	// (presence.go): until then the state is the offer card only.
	Presence *presenceMsg `json:"presence,omitempty"`
	// FileRequest is the page's file chooser, opened in the User's turn
	// (files.go).
	FileRequest *fileRequestMsg `json:"file_request,omitempty"`
	// Downloads are the downloads of the User's turn, to save on their
	// device (downloads.go).
	Downloads []downloadMsg `json:"downloads,omitempty"`
	// Lost says the page cannot be shown, and why: "tab_crashed" (its
	// renderer crashed; loading it again recovers it) or "browser_gone"
	// (the browser crashed, was closed, or the pool dropped it).
	Lost string `json:"lost,omitempty"`
}

// What a state's Lost says.
const (
	lostTabCrashed  = "tab_crashed"
	lostBrowserGone = "browser_gone"
)

type boxMsg struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// dialogMsg is a dialog a page opened; Message is the website's text.
type dialogMsg struct {
	Type    string `json:"type"` // alert, confirm, prompt, beforeunload
	Message string `json:"message"`
}

// frameMsg is one picture of the page; Width and Height are the viewport in
// CSS pixels.
type frameMsg struct {
	Type   string  `json:"type"` // "frame"
	Data   []byte  `json:"data"` // base64 JPEG
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// locateMsg answers a locate request with the element's viewport box.
type locateMsg struct {
	Type     string  `json:"type"` // "locate"
	Selector string  `json:"selector"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Width    float64 `json:"width"`
	Height   float64 `json:"height"`
}

type errorMsg struct {
	Type    string `json:"type"` // "error"
	Message string `json:"message"`
}
