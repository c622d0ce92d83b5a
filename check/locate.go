package check

import (
	"context"
	"slices"

	"github.com/poppy-browser/poppy-browser/browser"
	"github.com/poppy-browser/poppy-browser/marks"
)

// located is where the elements of the page's first load are: what an
// element-level finding points at, read while that load is live (a
// probe's findings come from later loads, whose elements stand for these).
type located struct {
	elements map[int]map[int]marks.Location // by frame index, then local id
	frames   map[int][]string               // frame selectors by frame index (nil: the top document)
	offsets  map[int][2]float64             // each frame's viewport in the top frame's
	sources  map[int][]byte                 // each frame's document as served
}

// locateFirst locates, in one call per frame, every element a finding
// may name: marked elements, the controls they cover, the escape routes'
// controls and the elements of the findings so far. It must run while the
// first load is live.
func (r *pageRun) locateFirst(ctx context.Context, frames []frameData) {
	want := map[int][]int{}
	add := func(frame, id int) {
		if id != 0 && !slices.Contains(want[frame], id) {
			want[frame] = append(want[frame], id)
		}
	}
	for _, fd := range frames {
		for _, m := range fd.inv {
			add(fd.idx, m.ID)
			for _, o := range m.Controls {
				add(fd.idx, o.ID)
			}
		}
	}
	for _, pr := range escapeProbes(frames, len(r.escapes) > 0) {
		add(pr.frame, pr.el.ID)
	}
	for _, me := range r.escapes { // buttons confirmRoutes may report
		for _, id := range me.esc.Scripted {
			add(me.frame, id)
		}
	}
	for _, f := range r.rep.Findings {
		if f.at != nil {
			add(f.at.frame, f.at.id)
		}
	}
	for _, ids := range want {
		slices.Sort(ids)
	}
	loc := &located{elements: map[int]map[int]marks.Location{}, frames: map[int][]string{}, offsets: map[int][2]float64{}, sources: map[int][]byte{}}
	all := map[browser.FrameID]browser.Frame{}
	for _, f := range r.p.Frames() {
		all[f.ID] = f
	}
	for _, fd := range frames {
		ids := want[fd.idx]
		if len(ids) == 0 {
			continue
		}
		if got, err := marks.Locate(ctx, fd.f, ids); err == nil {
			loc.elements[fd.idx] = got
		} else {
			r.c.log.Debug("locating elements", "url", fd.f.URL, "err", err)
		}
		if sels, ok := frameSelectors(ctx, all, fd.f); ok {
			loc.frames[fd.idx] = sels
		}
		if x, y, err := fd.f.Offset(ctx, r.p); err == nil {
			loc.offsets[fd.idx] = [2]float64{x, y}
		}
		if src, err := fd.f.Source(ctx); err == nil {
			loc.sources[fd.idx] = src
		} else {
			r.c.log.Debug("reading the document's source", "url", fd.f.URL, "err", err)
		}
	}
	r.loc = loc
}

// frameSelectors are the selectors of the frame elements from the top
// document down to f; nil for the top frame. ok is false when one could
// not be found.
func frameSelectors(ctx context.Context, all map[browser.FrameID]browser.Frame, f browser.Frame) (sels []string, ok bool) {
	for cur := f; cur.ParentID != ""; {
		parent, found := all[cur.ParentID]
		if !found {
			return nil, false
		}
		owner, found, err := marks.LocateFrame(ctx, parent, cur)
		if err != nil || !found || owner.Selector == "" {
			return nil, false
		}
		sel := owner.Selector
		if len(owner.Hosts) > 0 {
			// A frame element inside a shadow tree: its hosts, then it.
			sel = ""
			for _, h := range owner.Hosts {
				sel += h + " >>> "
			}
			sel += owner.Selector
		}
		sels = append([]string{sel}, sels...)
		cur = parent
	}
	return sels, true
}

// place fills the location fields of the findings from what locateFirst
// read, and their box on the agent's screenshot.
func (r *pageRun) place() {
	if r.loc == nil {
		return
	}
	var view *View
	if len(r.rep.Views) > 0 {
		view = &r.rep.Views[0]
	}
	for i := range r.rep.Findings {
		f := &r.rep.Findings[i]
		if f.at == nil {
			continue
		}
		l, ok := r.loc.elements[f.at.frame][f.at.id]
		if !ok {
			continue
		}
		f.Selector, f.ShadowHosts, f.HTML = l.Selector, l.Hosts, l.HTML
		f.FrameSelectors = r.loc.frames[f.at.frame]
		f.Line = sourceLine(r.loc.sources[f.at.frame], l.HTML)
		if view == nil || f.at.frame >= len(r.first) {
			continue
		}
		off, ok := r.loc.offsets[f.at.frame]
		e, found := r.first[f.at.frame].byID[f.at.id]
		if !ok || !found || e.Box.Width == 0 || e.Box.Height == 0 {
			continue
		}
		f.Box = &Rect{X: off[0] + e.Box.X + view.scrollX, Y: off[1] + e.Box.Y + view.scrollY, Width: e.Box.Width, Height: e.Box.Height}
	}
}

// on points a finding at an element of the first load (frame index, local id).
func (f Finding) on(frame, id int) Finding {
	f.at = &elementRef{frame: frame, id: id}
	return f
}
