package httpapi

import (
	"net/http"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonrpc"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/oap"
)

// serveOAP serves POST /orchestrate: one OAP envelope whose envelope_type
// names a JSON-RPC method of the negotiated A2A version (message/send,
// tasks/get... or SendMessage, GetTask... under 1.0), with that method's
// params and result. The four correlation headers are required and echoed;
// the response's _meta carries them. Orch-Session-Id is the context of the
// tasks the envelopes create.
//
// Statuses: 415 for another media type, 400 for a missing header, a
// malformed envelope or an unknown envelope_type, 200 for everything the
// method answers, errors included (as JSON-RPC does).
func (h *handler) serveOAP(w http.ResponseWriter, r *http.Request, c call) {
	corr, corrErr := oap.ReadCorrelation(r.Header)
	corr.Echo(w.Header())
	if err := oap.CheckMediaType(r.Header.Get("Content-Type")); err != nil {
		e := a2a.Errorf(a2a.CodeInvalidRequest, "Content-Type %q is not supported; send %s (or application/json)", r.Header.Get("Content-Type"), oap.ContentType).
			WithData(map[string]any{"supported_media_types": oap.ContentType + ", application/json"})
		h.oapError(w, r, c.wire, http.StatusUnsupportedMediaType, nil, corr, e)
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	req, err := oap.Decode(body)
	if err != nil {
		h.oapError(w, r, c.wire, http.StatusBadRequest, req, corr, err)
		return
	}
	if corrErr != nil {
		h.oapError(w, r, c.wire, http.StatusBadRequest, req, corr, corrErr)
		return
	}
	method, found := c.wire.table().methods[req.EnvelopeType]
	if !found {
		e := (&a2a.Error{Code: a2a.CodeMethodNotFound, Message: "Unsupported envelope_type: " + req.EnvelopeType}).WithData(map[string]any{
			"type": "ENVELOPE_TYPE_NOT_SUPPORTED", "envelope_type": req.EnvelopeType,
			"supported_envelope_types": c.wire.table().supported, "protocol_version": string(c.wire.version),
		})
		h.oapError(w, r, c.wire, http.StatusBadRequest, req, corr, e)
		return
	}
	c.session = corr.SessionID
	result, err := method(r, c, req.Params)
	if err != nil {
		h.oapError(w, r, c.wire, http.StatusOK, req, corr, err)
		return
	}
	buf := h.answers.Get()
	b, err := appendResult(oap.AppendResultStart(*buf, req.ID, req.EnvelopeType), result)
	if err == nil {
		b = oap.AppendEnd(b, oap.Meta(req.Meta, corr))
		err = h.writeResult(w, r, oap.ContentType, b)
	}
	h.answers.Put(buf, b)
	if err != nil {
		h.oapError(w, r, c.wire, http.StatusOK, req, corr, err)
	}
}

// oapError answers with an error envelope, framed for the version.
func (h *handler) oapError(w http.ResponseWriter, r *http.Request, wr *wire, status int, req *oap.Request, corr oap.Correlation, err error) {
	if req == nil {
		req = &oap.Request{ID: jsonrpc.NullID}
	}
	e := h.protocolError(r.Context(), err, "oap "+req.EnvelopeType)
	body := oap.EncodeError(req.ID, req.EnvelopeType, wr.rpcError(e), oap.Meta(req.Meta, corr))
	w.Header()["Content-Type"] = []string{oap.ContentType}
	w.WriteHeader(status)
	w.Write(body)
}

// oapVersionError answers an envelope whose A2A-Version is not supported,
// in the 1.0 error shape, echoing what it can of the request.
func (h *handler) oapVersionError(w http.ResponseWriter, r *http.Request, e *a2a.Error) {
	corr, _ := oap.ReadCorrelation(r.Header)
	corr.Echo(w.Header())
	var req *oap.Request
	if body, ok := h.readBody(w, r); ok {
		req, _ = oap.Decode(body)
	} else {
		return
	}
	h.oapError(w, r, h.v10, http.StatusBadRequest, req, corr, e)
}
