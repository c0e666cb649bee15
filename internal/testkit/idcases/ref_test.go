package idcases

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRefAgreesWithCases checks the reference parser, and where it places
// a fault, against every row of the table.
func TestRefAgreesWithCases(t *testing.T) {
	for _, tc := range Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			conn, stream, record, ok := RefParse(tc.ID)
			assert.Equal(t, tc.OK, ok)
			segment, offset := RefFault(tc.ID)
			if tc.OK {
				assert.Equal(t, [3]string{tc.Conn, tc.Stream, tc.Record}, [3]string{conn, stream, record})
				assert.Equal(t, "", segment)
				return
			}
			assert.Equal(t, tc.Segment, segment)
			assert.Equal(t, tc.Offset, offset)
		})
	}
}
