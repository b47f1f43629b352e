package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const templatePath = "../../template.yaml"

func TestProjectTemplate(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{templatePath}, &out, &errs)
	assert.Equal(t, 0, code, errs.String())
	assert.Regexp(t, `^rules-check: \.\./\.\./template\.yaml: [1-9][0-9]* rule\(s\) use only the rule functions\n$`, out.String())
}

// Functions CloudFormation refuses in Rules make the command fail, naming
// the rule, the assertion and the function; the project's own rules, with
// the defect it once had (Fn::Join inside Fn::Equals), first.
func TestMistakes(t *testing.T) {
	b, err := os.ReadFile(templatePath)
	require.NoError(t, err)
	project := string(b)
	for _, tc := range []struct {
		name, old, new string
		want           []string
	}{
		{"Fn::Join in an assertion",
			"!Not [!EachMemberEquals [!Ref JwtAudience, '']]", "!Not [!Equals [!Join ['', !Ref JwtAudience], '']]",
			[]string{"rule JwtOrBearer: Assertions[1].Assert uses Fn::Join; CloudFormation allows only Ref, Fn::And, "}},
		{"Fn::If in a rule condition, long form",
			"RuleCondition: !Not [!Equals [!Ref JwtIssuer, '']]", `RuleCondition: {"Fn::Not": [{"Fn::Equals": [{"Fn::If": [UseJwt, a, b]}, '']}]}`,
			[]string{"rule JwtOrBearer: RuleCondition uses Fn::If;"}},
		{"a condition and Fn::Sub",
			"- Assert: !Not [!Equals [!Ref PushSigningKeys, '']]", "- Assert: !And [!Condition UseJwt, !Equals [!Sub '${PushSigningKeys}', '']]",
			[]string{"rule PushNeedsSigningKeys: Assertions[0].Assert uses Condition;", "rule PushNeedsSigningKeys: Assertions[0].Assert uses Fn::Sub;"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, project, tc.old, "the mistake's anchor must exist")
			path := filepath.Join(t.TempDir(), "template.yaml")
			require.NoError(t, os.WriteFile(path, []byte(strings.Replace(project, tc.old, tc.new, 1)), 0o644))
			var out, errs bytes.Buffer
			assert.Equal(t, 1, run([]string{path}, &out, &errs))
			assert.Empty(t, out.String())
			for _, w := range tc.want {
				assert.Contains(t, errs.String(), path+": "+w)
			}
			assert.Len(t, strings.Split(strings.TrimSpace(errs.String()), "\n"), len(tc.want), "one line per problem: %s", errs.String())
		})
	}
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{filepath.Join(t.TempDir(), "none.yaml")}, &out, &errs))
}
