package check

// Wanted is wanted, for the crawl's pattern tests.
var Wanted = wanted
