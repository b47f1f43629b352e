package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/cmd/asl-check/internal/asl"
	"github.com/a2a-lambda/a2a-lambda/pkg/samtemplate"
)

// Check checks every state machine of the template at path. It returns how
// many definitions it checked and the problems found, each prefixed with
// the template, the resource and the definition file.
func Check(path string) (int, []string, error) {
	t, err := samtemplate.Load(path)
	if err != nil {
		return 0, nil, err
	}
	checked := 0
	var problems []string
	for _, r := range t.OfType("AWS::Serverless::StateMachine") {
		where := fmt.Sprintf("%s: %s", path, r.Name)
		def, source, err := definition(filepath.Dir(path), r)
		if err != nil {
			problems = append(problems, where+": "+err.Error())
			continue
		}
		if def == nil {
			continue // stored in S3: nothing local to check
		}
		where += " (" + source + ")"
		checked++
		for _, p := range checkDefinition(def, samtemplate.Keys(r.Prop("DefinitionSubstitutions"))) {
			problems = append(problems, where+": "+p)
		}
	}
	return checked, problems, nil
}

// definition returns a state machine's definition and where it comes from;
// nil when it is in S3.
func definition(dir string, r *samtemplate.Resource) ([]byte, string, error) {
	if uri, ok := samtemplate.Scalar(r.Prop("DefinitionUri")); ok {
		if strings.HasPrefix(uri, "s3://") {
			return nil, uri, nil
		}
		b, err := os.ReadFile(filepath.Join(dir, uri))
		if err != nil {
			return nil, uri, fmt.Errorf("DefinitionUri: %w", err)
		}
		return b, uri, nil
	}
	if n := r.Prop("Definition"); n != nil {
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, "Definition", fmt.Errorf("Definition: %w", err)
		}
		b, err := json.Marshal(v)
		return b, "Definition", err
	}
	if r.Prop("DefinitionUri") != nil {
		return nil, "", fmt.Errorf("DefinitionUri is not a plain path or s3:// URI")
	}
	return nil, "", fmt.Errorf("has neither DefinitionUri nor Definition")
}

// checkDefinition compares the definition's tokens with the substitutions,
// substitutes stand-ins and runs the ASL checks.
func checkDefinition(def []byte, substitutions []string) []string {
	var problems []string
	tokens := asl.Tokens(def)
	for _, tok := range tokens {
		if !slices.Contains(substitutions, tok) {
			problems = append(problems, fmt.Sprintf("${%s} has no DefinitionSubstitutions entry: the deployed definition would keep the token", tok))
		}
	}
	values := map[string]string{}
	for _, s := range substitutions {
		if !slices.Contains(tokens, s) {
			problems = append(problems, fmt.Sprintf("DefinitionSubstitutions.%s is not used by the definition", s))
		}
		values[s] = standIn(s)
	}
	for _, tok := range tokens {
		if _, ok := values[tok]; !ok {
			values[tok] = standIn(tok)
		}
	}
	substituted, err := asl.Substitute(def, values)
	if err != nil {
		return append(problems, err.Error())
	}
	_, found := asl.Check(substituted)
	return append(problems, found...)
}

// standIn is a value of the right shape for a substitution: an ARN for
// names ending in Arn, a partition for Partition, a number otherwise (valid
// both inside a JSON string and as a bare number).
func standIn(name string) string {
	switch {
	case strings.HasSuffix(name, "Arn"):
		return "arn:aws:lambda:us-east-1:123456789012:function:" + name
	case name == "Partition":
		return "aws"
	}
	return "1"
}
