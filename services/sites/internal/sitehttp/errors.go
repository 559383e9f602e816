package sitehttp

import "github.com/docspub/platform/libs/apierr"

func invalid(field, msg string) error { return apierr.Invalid(field, "%s", msg) }
