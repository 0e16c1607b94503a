// Fabrics, VLANs, spaces and subnets of the simulated MAAS.
export class Network {}
