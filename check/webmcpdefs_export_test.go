package check

import (
	"encoding/json"
	"fmt"
)

// DeclaredToolForTest and ToolFieldForTest are declaredTool and
// toolField, for the rules' table tests.
type (
	DeclaredToolForTest = declaredTool
	ToolFieldForTest    = toolField
)

// DeclaredProblemsForTest is declaredProblems' messages.
func DeclaredProblemsForTest(d declaredTool) []string {
	var out []string
	for _, p := range declaredProblems(d) {
		out = append(out, p.Message)
	}
	return out
}

// SchemaFaultForTest is schemaFault of a schema given as text.
func SchemaFaultForTest(s string) string { return schemaFault(json.RawMessage(s)) }

// LocateRegistrationForTest locates name in one inline script of page.
func LocateRegistrationForTest(name, pageURL, inline, page string) string {
	reg, ok := locateRegistration(name, pageURL, []pageScript{{Text: inline}}, []byte(page))
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %d:%d page line %d", reg.Script, reg.Line, reg.Column, reg.PageLine)
}
