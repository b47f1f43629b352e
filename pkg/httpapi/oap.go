package httpapi

import "net/http"

// oapVersionError answers an OAP envelope whose A2A-Version is not
// supported. (Placeholder until the OAP route lands.)
func (h *handler) oapVersionError(w http.ResponseWriter, r *http.Request, e error) {
	writeRESTError(w, h.protocolError(r.Context(), e, "oap"))
}
