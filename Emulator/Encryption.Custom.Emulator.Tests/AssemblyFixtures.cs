// One CosmosClient for the whole test run, shared by every test class (see CosmosEndpointFixture).
[assembly: AssemblyFixture(typeof(CosmosEndpointFixture))]
