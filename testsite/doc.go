package testsite
