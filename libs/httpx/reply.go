package httpx

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// Reply answers with v as JSON and status, or with the error.
func Reply(c *gin.Context, status int, v any, err error) {
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(status, v)
}

// Empty answers with no body and status (204 or 205), or with the error.
func Empty(c *gin.Context, status int, err error) {
	if err != nil {
		Error(c, err)
		return
	}
	NoContent(c, status)
}

// Bind decodes a required JSON object body into v; on failure it answers
// the 400 and returns false.
func Bind(c *gin.Context, v any) bool {
	if err := BindJSON(c, v); err != nil {
		Error(c, err)
		return false
	}
	return true
}

// BindOptional decodes an optional JSON object body into v; on failure it
// answers the 400 and returns false.
func BindOptional(c *gin.Context, v any) bool {
	if err := BindOptionalJSON(c, v); err != nil {
		Error(c, err)
		return false
	}
	return true
}

// Created answers 201 with v and a Location header, or the error.
func Created(c *gin.Context, location string, v any, err error) {
	if err == nil {
		c.Header("Location", location)
	}
	Reply(c, http.StatusCreated, v, err)
}
