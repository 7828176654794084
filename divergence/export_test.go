package divergence

// Reaches exports reaches to the external tests (the SIMT-stack simulator
// of property_test.go).
var Reaches = reaches
