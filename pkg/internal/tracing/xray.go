package tracing

import (
	"encoding/json"
	"net"
	"strings"
)

// xrayHeader starts every document sent to the X-Ray daemon.
const xrayHeader = `{"format":"json","version":1}` + "\n"

// XRayDaemon sends spans as subsegments to the X-Ray daemon's UDP address
// (AWS_XRAY_DAEMON_ADDRESS, which Lambda sets when Tracing is Active). A
// send that fails is dropped: tracing never fails a request.
type XRayDaemon struct {
	conn net.Conn
}

// NewXRayDaemon dials addr ("host:port", or Lambda's "udp:host:port
// tcp:host:port" form, whose UDP part is used).
func NewXRayDaemon(addr string) (*XRayDaemon, error) {
	for f := range strings.FieldsSeq(addr) {
		if v, ok := strings.CutPrefix(f, "udp:"); ok {
			addr = v
		}
	}
	conn, err := net.Dial("udp", addr)
	if err != nil {
		return nil, err
	}
	return &XRayDaemon{conn: conn}, nil
}

// Export sends s as an independent subsegment.
func (x *XRayDaemon) Export(s Span) {
	b, err := json.Marshal(Subsegment(s))
	if err != nil {
		return
	}
	_, _ = x.conn.Write(append([]byte(xrayHeader), b...))
}

// Subsegment is the X-Ray subsegment document of s.
func Subsegment(s Span) map[string]any {
	doc := map[string]any{
		"type": "subsegment", "name": s.Name, "id": s.ID, "trace_id": s.TraceID, "parent_id": s.ParentID,
		"start_time": float64(s.Start.UnixMicro()) / 1e6, "end_time": float64(s.End.UnixMicro()) / 1e6,
	}
	if s.Namespace != "" {
		doc["namespace"] = s.Namespace
	}
	if s.Error != "" {
		doc["fault"] = true
		doc["cause"] = map[string]any{"exceptions": []map[string]any{{"message": s.Error}}}
	}
	switch {
	case s.Namespace == "aws" && s.Operation != "":
		doc["aws"] = map[string]any{"operation": s.Operation}
	case s.Status != 0 || s.Operation != "":
		doc["http"] = map[string]any{"request": map[string]any{"method": s.Operation}, "response": map[string]any{"status": s.Status}}
	}
	return doc
}
