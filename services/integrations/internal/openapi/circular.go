package openapi

import (
	"errors"

	"github.com/pb33f/libopenapi/index"
)

func isCircular(err error) bool {
	var re *index.ResolvingError
	return errors.As(err, &re) && re.CircularReference != nil
}
