# svc — see README.md. Every target works offline except the first download
# of Go modules (through the Go module proxy).

GO        ?= go
BIN       := bin/svc
SHARED    ?= $(abspath ../shared)
DATA      ?= ./var
ADDR      ?= 127.0.0.1:8080
# `make shards`: a sharded run over the fixture world (fixtures/shards.sh).
SHARDS    ?= 4
SHARDDATA ?= ./var-shards
FUZZTIME  ?= 2000x
# Fuzz targets as package:Target; `make test` runs each for $(FUZZTIME) inputs
# (a count, not a duration: Go 1.26's fuzz runner can fail at a time deadline
# under load, golang/go#75804),
# `make fuzz` for FUZZLONG.
FUZZLONG  ?= 60s
FUZZ      := ./pipeline/fetch:FuzzParseURL ./pipeline/detect:FuzzRobots ./pipeline/detect:FuzzJSONLD \
             ./pipeline/detect:FuzzWebMCP ./pipeline/detect:FuzzHTMLDetectors ./pipeline/detect:FuzzCatalog \
             ./pipeline/detect:FuzzMarketAndDescription \
             ./pipeline/ucp:FuzzValidate ./pipeline/ucp:FuzzParser ./pipeline/ucp:FuzzIsURI \
             ./datasets:FuzzCSVString ./serve:FuzzMCPEndpoint ./cmd/internal/ciclient:FuzzAnswers

# Tests and the demo load the UCP schemas from ../shared when it exists; they
# are never copied into the repository.
ifneq ($(wildcard $(SHARED)/ucp/schema),)
export SVC_UCP_SCHEMA_DIR ?= $(SHARED)/ucp/schema
export SVC_SHARED_DIR ?= $(SHARED)
endif

.PHONY: all build test checks demo shards bench fuzz clean lab lab-test lab-table

all: build

build:
	$(GO) build -o $(BIN) ./cmd/svc

# The browser packages run after the rest, one at a time: their shoppers
# and the timing tests of Chromium's frames share two cores badly.
SHOPPKGS  := ./pipeline/shop/ ./pipeline/shop/browser/
test:
	$(GO) test -count=1 -timeout 20m $$($(GO) list ./... | grep -v -e '/pipeline/shop$$' -e '/pipeline/shop/browser$$')
	$(GO) test -count=1 -timeout 30m -p 1 $(SHOPPKGS)
	@for t in $(FUZZ); do pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$fn ($(FUZZTIME))"; \
	  $(GO) test -run='^$$' -fuzz="^$$fn\$$" -fuzztime=$(FUZZTIME) $$pkg >/dev/null || exit 1; done

checks:
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@command -v staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@latest
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck ./...
	$(GO) mod tidy -diff

# The UCP schemas of ../shared when it is there (the UCP path needs them to
# run over the fixture world offline); without it the demo says so.
UCP_SCHEMAS ?= $(wildcard ../shared/ucp/schema)

demo: build
	./$(BIN) demo --data $(DATA) $(if $(UCP_SCHEMAS),--ucp-schema-dir $(UCP_SCHEMAS))

# The lab (fixtures/platforms): real store software behind one TLS front on
# LABADDR. `make lab` serves it until Ctrl-C; `make lab-test` holds every
# check and agent path on every lab store to its hand-written truth
# (fixtures/platforms/truth.json); `make lab-table` writes the README's
# table of it. The first install takes minutes; later runs start in seconds.
LABADDR   ?= 127.0.0.1:8444
LABTIME   ?= 80m
lab: build
	./$(BIN) fixtures lab --addr $(LABADDR) --data $(DATA)

lab-test: build
	SVC_LAB=1 SVC_BIN=$(abspath $(BIN)) $(GO) test -count=1 -v -run '^TestLab$$' -timeout $(LABTIME) ./fixtures/platforms/

lab-table: build
	SVC_LAB=1 SVC_BIN=$(abspath $(BIN)) SVC_LAB_TABLE=$(abspath fixtures/platforms/TABLE.md) \
	  $(GO) test -count=1 -run '^TestLab$$' -timeout $(LABTIME) ./fixtures/platforms/

# SHARDS crawl processes at once, then SHARDS validate processes, then
# aggregate and snapshot, over the fixture world into SHARDDATA.
shards: build
	SVC=./$(BIN) DATA=$(SHARDDATA) SHARDS=$(SHARDS) bash fixtures/shards.sh

# Each benchmark prints its figure against the target and a baseline measured
# in the same run (raw fetching, DuckDB's own COPY and GROUP BY).
bench: build
	$(GO) test -run='^$$' -bench='^BenchmarkCrawlVsRawFetch$$' -benchtime=1x ./pipeline/
	$(GO) test -run='^$$' -bench='^BenchmarkShardedCrawl$$' -benchtime=1x -timeout=30m ./pipeline/
	$(GO) test -run='^$$' -bench='^BenchmarkRecrawl$$' -benchtime=1x -timeout=30m ./pipeline/ # second crawl of an unchanged world: bytes against the first
	pipeline/ucp/testdata/ajv/install && $(GO) test -run='^$$' -bench='^BenchmarkValidateFullValid$$|^BenchmarkValidateVsAjv$$' -cpu=1 -benchmem ./pipeline/ucp/ # ajv 8 from npm, cached in ~/.cache/svc-ajv
	$(GO) test -run='^$$' -bench='^BenchmarkParquetVsDuckDB$$' -benchtime=1x ./datasets/
	$(GO) test -run='^$$' -bench='^BenchmarkAggregate$$' -benchtime=1x ./pipeline/
	$(GO) test -run='^$$' -bench='^BenchmarkShoppers$$' -benchtime=1x -timeout=30m ./pipeline/shop/ # needs Chromium
	$(GO) test -run='^$$' -bench='^BenchmarkReadingAProductGrid$$' -benchtime=1x ./pipeline/shop/ # needs Chromium: the shoppers' reading of a page the size of a real store's
	$(GO) test -run='^$$' -bench=. -benchmem ./pipeline/detect/
	$(GO) test -run='^$$' -bench='^BenchmarkPrecomputedVsFileServer$$' -benchtime=1x ./serve/
	$(GO) test -run='^$$' -bench='^BenchmarkReplicas$$' -benchtime=1x ./serve/ # needs SVC_TEST_POSTGRES (eval "$$(.ci/postgres)")
	$(GO) test -run='^$$' -bench='^BenchmarkSavedReadsMillion$$' -benchtime=1x -timeout=30m ./serve/
	SVC_BIN=$(abspath $(BIN)) $(GO) test -run='^$$' -bench='^BenchmarkServeLoad$$' -benchtime=1x -timeout=30m ./serve/

fuzz:
	@for t in $(FUZZ); do pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "fuzz $$fn ($(FUZZLONG))"; \
	  $(GO) test -run='^$$' -fuzz="^$$fn\$$" -fuzztime=$(FUZZLONG) $$pkg || exit 1; done

clean:
	rm -rf bin var var-shards
