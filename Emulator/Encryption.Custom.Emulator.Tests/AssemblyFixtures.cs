// One CosmosClient for the whole test run, shared by every test class (see CosmosEndpointFixture).
[assembly: AssemblyFixture(typeof(CosmosEndpointFixture))]

// The classes that wait longest start first (StartsFirstAttribute says why).
[assembly: TestCollectionOrderer(typeof(StartsFirstCollectionOrderer))]
