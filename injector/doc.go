package injector
