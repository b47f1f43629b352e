package infra_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/agent/builtin"
	"github.com/a2a-lambda/a2a-lambda/pkg/boot"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/clienttest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/envtest"
)

// routeVariable is a path variable of a route key: {name} matches one
// whole segment, {name+} (greedy) the rest of the path.
var routeVariable = regexp.MustCompile(`^\{([A-Za-z0-9_]+)(\+?)\}$`)

// routePattern is the regular expression of the request paths a route
// key's path matches, as API Gateway matches them.
func routePattern(path string) string {
	var b strings.Builder
	b.WriteString("^")
	for i, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if i > 0 || path != "/" {
			b.WriteString("/")
		}
		switch m := routeVariable.FindStringSubmatch(seg); {
		case m == nil:
			b.WriteString(regexp.QuoteMeta(seg))
		case m[2] == "+":
			b.WriteString(".+")
		default:
			b.WriteString("[^/]+")
		}
	}
	if path == "/" {
		b.WriteString("/")
	}
	b.WriteString("$")
	return b.String()
}

// pathParameters returns what API Gateway passes as pathParameters for a
// request path of a route key's path (nil without variables).
func pathParameters(route, path string) map[string]string {
	var out map[string]string
	rs := strings.Split(strings.TrimPrefix(route, "/"), "/")
	ps := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, seg := range rs {
		m := routeVariable.FindStringSubmatch(seg)
		if m == nil || i >= len(ps) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		if m[2] == "+" {
			out[m[1]] = strings.Join(ps[i:], "/")
		} else {
			out[m[1]] = ps[i]
		}
	}
	return out
}

// specificity ranks the routes that match one request as API Gateway
// does: a route without variables first, then one with path variables
// (the more literal segments, the better), a greedy one last.
func specificity(path string) (greedy bool, variables int, literals int) {
	for _, seg := range strings.Split(path, "/") {
		switch m := routeVariable.FindStringSubmatch(seg); {
		case m == nil:
			literals++
		case m[2] == "+":
			greedy = true
		default:
			variables++
		}
	}
	return
}

// selectRoute returns the route API Gateway chooses for a request, among
// the routes that exist under a condition ("" for the unconditional ones).
func selectRoute(routes []samtemplate.Route, condition, method, path string) (samtemplate.Route, bool) {
	var matches []samtemplate.Route
	for _, r := range routes {
		m, p, _ := strings.Cut(r.Key, " ")
		if (r.Condition == "" || r.Condition == condition) && (m == method || m == "ANY") && regexp.MustCompile(routePattern(p)).MatchString(path) {
			matches = append(matches, r)
		}
	}
	if len(matches) == 0 {
		return samtemplate.Route{}, false
	}
	sort.SliceStable(matches, func(i, j int) bool {
		_, pi, _ := strings.Cut(matches[i].Key, " ")
		_, pj, _ := strings.Cut(matches[j].Key, " ")
		gi, vi, li := specificity(pi)
		gj, vj, lj := specificity(pj)
		if gi != gj {
			return !gi
		}
		if (vi == 0) != (vj == 0) {
			return vi == 0
		}
		return li > lj
	})
	return matches[0], true
}

// restRequests are the requests of every route the product serves, with
// the function that must serve each: every path of the REST binding under
// both bases, whatever ':' it holds.
func restRequests() [][3]string {
	out := [][3]string{
		{"GET", "/.well-known/agent-card.json", "CardFunction"},
		{"GET", "/.well-known/agent.json", "CardFunction"},
		{"GET", "/.well-known/jwks.json", "CardFunction"},
		{"POST", "/", "SendFunction"},
		{"POST", "/orchestrate", "SendFunction"},
		{"GET", "/health", "TasksFunction"},
		{"GET", "/rest/extendedAgentCard", "TasksFunction"},
	}
	for _, base := range []string{"/rest/v1", "/rest"} {
		out = append(out,
			[3]string{"POST", base + "/message:send", "SendFunction"},
			[3]string{"POST", base + "/message:stream", "SendFunction"},
			[3]string{"GET", base + "/tasks", "TasksFunction"},
			[3]string{"GET", base + "/tasks/t-1", "TasksFunction"},
			[3]string{"GET", base + "/tasks/t-1:subscribe", "TasksFunction"},
			[3]string{"POST", base + "/tasks/t-1:cancel", "TasksFunction"},
			[3]string{"POST", base + "/tasks/t-1:subscribe", "TasksFunction"},
			[3]string{"POST", base + "/tasks/t-1/pushNotificationConfigs", "TasksFunction"},
			[3]string{"GET", base + "/tasks/t-1/pushNotificationConfigs", "TasksFunction"},
			[3]string{"GET", base + "/tasks/t-1/pushNotificationConfigs/c-1", "TasksFunction"},
			[3]string{"DELETE", base + "/tasks/t-1/pushNotificationConfigs/c-1", "TasksFunction"},
			[3]string{"GET", base + "/card", "TasksFunction"},
		)
	}
	return out
}

// The HTTP API's routes: the public cards need no credential; every other
// route exists once without the JWT authorizer (NoJwt) and once with it
// (UseJwt), to the same function; no route key holds a ':' (the REST colon
// methods come through path variables).
func TestRoutes(t *testing.T) {
	routes, err := load(t).Routes()
	require.NoError(t, err)
	type flavor struct{ fn, auth, authorizer string }
	byKey := map[string]map[string]flavor{}
	for _, r := range routes {
		assert.NotContains(t, r.Key, ":", "%s: route keys never depend on ':'", r.Name)
		if byKey[r.Key] == nil {
			byKey[r.Key] = map[string]flavor{}
		}
		_, dup := byKey[r.Key][r.Condition]
		assert.False(t, dup, "%s: route %q twice under condition %q", r.Name, r.Key, r.Condition)
		byKey[r.Key][r.Condition] = flavor{r.Function, r.Authorization, r.Authorizer}
	}
	for key, fl := range byKey {
		if public, ok := fl[""]; ok {
			assert.Len(t, fl, 1, "%s: a public route has no conditional twin", key)
			assert.Equal(t, flavor{"CardFunction", "NONE", ""}, public, "%s: only the card function's routes are public", key)
			continue
		}
		require.Contains(t, fl, "NoJwt", key)
		require.Contains(t, fl, "UseJwt", key)
		assert.Len(t, fl, 2, key)
		assert.Equal(t, flavor{fl["NoJwt"].fn, "NONE", ""}, fl["NoJwt"], "%s: without JwtIssuer the functions check bearer tokens", key)
		assert.Equal(t, flavor{fl["NoJwt"].fn, "JWT", "JwtAuthorizer"}, fl["UseJwt"], "%s: with JwtIssuer, API Gateway checks the JWT", key)
		assert.NotEqual(t, "CardFunction", fl["NoJwt"].fn, key)
	}
}

// Every request the product serves is routed by API Gateway (the most
// specific matching route, as it chooses) to the function that serves it,
// in both authorization modes.
func TestEveryPathHasItsRoute(t *testing.T) {
	routes, err := load(t).Routes()
	require.NoError(t, err)
	for _, cond := range []string{"NoJwt", "UseJwt"} {
		for _, req := range restRequests() {
			r, ok := selectRoute(routes, cond, req[0], req[1])
			if assert.True(t, ok, "%s %s %s: no route", cond, req[0], req[1]) {
				assert.Equal(t, req[2], r.Function, "%s %s %s: route %s", cond, req[0], req[1], r.Key)
			}
		}
	}
	// The router model itself: a path variable wins over a greedy one.
	r, _ := selectRoute(routes, "NoJwt", "POST", "/rest/v1/message:send")
	assert.Equal(t, "POST /rest/v1/{method}", r.Key)
}

// served reports whether a handler's answer came from one of its routes
// (not its "no route" 404 or a 405).
func served(code int, body string) bool {
	return code != http.StatusMethodNotAllowed && !strings.Contains(body, "no route for")
}

const routeTestBody = `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t-1"}}`

// Every REST path, colons included, reaches a handler of its function
// through the Lambda handler (an API Gateway event of the route API
// Gateway chooses, with its path parameters, through the same adapter as
// the deployed functions), and through the local server over real HTTP.
func TestEveryPathIsServed(t *testing.T) {
	routes, err := load(t).Routes()
	require.NoError(t, err)
	handlers := functionHandlers(t)

	ag, err := builtin.Registry().New("echo", envtest.Getenv())
	require.NoError(t, err)
	srv := clienttest.Start(t, clienttest.Options{Agent: ag, Token: "test-token-16-ch"})

	for _, req := range restRequests() {
		method, path, fn := req[0], req[1], req[2]
		t.Run(method+" "+path, func(t *testing.T) {
			r, ok := selectRoute(routes, "NoJwt", method, path)
			require.True(t, ok)
			_, pattern, _ := strings.Cut(r.Key, " ")
			ev := events.APIGatewayV2HTTPRequest{
				Version:        "2.0",
				RouteKey:       r.Key,
				RawPath:        path,
				PathParameters: pathParameters(pattern, path),
				Headers:        map[string]string{"authorization": "Bearer test-token-16-ch", "content-type": "application/json"},
				Body:           routeTestBody,
			}
			ev.RequestContext.RouteKey = r.Key
			ev.RequestContext.HTTP.Method = method
			ev.RequestContext.HTTP.Path = path
			ev.RequestContext.DomainName = "api.example.com"
			resp, err := boot.LambdaHTTP(handlers[fn], nil)(context.Background(), ev)
			require.NoError(t, err)
			assert.True(t, served(resp.StatusCode, resp.Body), "Lambda %s (route %s): %d %s", fn, r.Key, resp.StatusCode, resp.Body)
			assert.Less(t, resp.StatusCode, 500, resp.Body)

			hr, err := http.NewRequest(method, srv.URL+path, strings.NewReader(routeTestBody))
			require.NoError(t, err)
			hr.Header.Set("Authorization", "Bearer test-token-16-ch")
			hr.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(hr)
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.True(t, served(res.StatusCode, string(body)), "local server: %d %s", res.StatusCode, body)
			assert.Less(t, res.StatusCode, 500, string(body))
		})
	}
}
